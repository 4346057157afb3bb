"""``quiz serve``: the drill in a browser, over the same collection and the same use cases
(``quizzer.app``) as the terminal. It imports nothing below the app layer (no store,
scheduling, decks or kinds): pages draw the app's views, and every answer goes through it.

Starlette, Jinja2 and uvicorn are imported only by ``quiz serve``, so no other command starts
slower. Deck text is escaped everywhere (Jinja's autoescape, Markdown with raw HTML off, math
as MathML whose elements are checked against MathML's own), and the pages load nothing from
another host (a Content-Security-Policy of 'self' says so to the browser too).
"""
