"""quizzer: spaced-repetition drills for ML/NLP interviews."""


