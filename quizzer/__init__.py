"""quizzer: spaced-repetition drills for ML/NLP interviews."""

KINDS = ("qa", "choice", "mistake", "numeric")  # the card kinds, here so the CLI needs no deck model
