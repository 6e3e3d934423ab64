"""Render functions: keyword-only options and a key= prefix, so a component can appear twice on a page."""
