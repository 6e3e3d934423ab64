"""(being built)"""
import streamlit as st

st.info("This page is being built.")
