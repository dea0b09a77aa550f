"""lesson_fixtures: the PyTorch twins of `scratchgpt lesson` (lecture.py, book.py), what of them is
recorded (cases.py) and the recorder (record.py); tools/make_lesson_fixtures.py runs them.
"""
