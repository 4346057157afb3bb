from quizzer.cli import run

run()
