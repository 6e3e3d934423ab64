"""What the pages read, cached: the one shared Store of the server process (store.py), its catalogue per data
version (catalogue.py), and st.cache_data wrappers around core's service calls (results.py, diversity.py,
judges.py). Caches return values; they never render."""
