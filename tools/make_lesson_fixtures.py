#!/usr/bin/python3
"""make_lesson_fixtures.py: runs the PyTorch code of every `scratchgpt lesson` and records what it
prints, so tests/e2e/lesson_test.cpp can compare the C++ lessons with PyTorch string for string.

The lessons are in tools/lesson_fixtures/: lecture.py follows Karpathy's "Let's build GPT"
notebook/gpt.py and book.py Raschka's "Build a Large Language Model from Scratch" chapter 3, with
the same seeds and the same call order; cases.py says what runs (the lessons, their SHAPES, the
print cases, the module fixtures); record.py records and writes.

Writes, under tests/fixtures/lessons/:
  lessons.json          {lesson: [{"kind": "tensor"|"text", "text": str}, ...]} in print order;
                        "tensor" items are str(tensor) (or str(torch.Size)), "text" items are
                        whole lines the lesson must print.
  <lesson>.txt          the full PyTorch output, for people.
  print_cases.*         tensors of many formats and their str(), for tests/stones/print_test.cpp.
  modules/*.safetensors weights, input, upstream gradient, output and every gradient of each
                        stepping-stone module, for tests/stones/stones_pytorch_test.cpp.

  lessons_shapes.json   [{"lesson", "flags", "items"}]: the lecture's lessons again at other sizes
                        and seeds (SHAPES), and head's --trace; shapes.txt: their output, for people.

Run with Debian's PyTorch (python3-torch 1.13), from the repository root:
  /usr/bin/python3 tools/make_lesson_fixtures.py                 # everything
  /usr/bin/python3 tools/make_lesson_fixtures.py --shapes-only   # lessons_shapes.json, shapes.txt
LESSON_FIXTURES_OUT=DIR writes elsewhere (to compare with the committed files).
"""
import os
import sys

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)
from lesson_fixtures import cases, record  # noqa: E402

OUT = os.environ.get("LESSON_FIXTURES_OUT",
                     os.path.join(os.path.dirname(TOOLS), "tests", "fixtures", "lessons"))


def main():
    os.makedirs(OUT, exist_ok=True)
    if "--shapes-only" in sys.argv[1:]:
        record.write_shapes(OUT, cases.LESSONS, cases.SHAPES)
        print(f"wrote {OUT}/lessons_shapes.json, shapes.txt")
        return
    record.write_lessons(OUT, cases.LESSONS)
    record.write_shapes(OUT, cases.LESSONS, cases.SHAPES)
    record.save_print_cases(OUT, *cases.print_cases())
    cases.module_fixtures(OUT)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
