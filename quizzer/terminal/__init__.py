"""The terminal front end: draws the application layer's views with rich and turns keys and
typed lines into its events. On a pipe, one line per prompt (the line protocol)."""
