from quizzer.cli import main

main()
