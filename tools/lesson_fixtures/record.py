"""record.py: the recorder and the writer of the lesson fixtures. Rec prints what a lesson prints
and keeps every tensor and chosen line in order; the write_* and save_* functions run lessons
with stdout captured and write lessons.json, the <lesson>.txt files, lessons_shapes.json,
shapes.txt, print_cases.* and modules/*.safetensors into a folder. Leaves out: the lessons
themselves (lecture.py, book.py) and which of them run at which sizes (cases.py).
"""
import io
import json
import os
from contextlib import redirect_stdout

import torch

import safetensors_io


class Rec:
    """Prints like the notebooks and records every tensor / chosen line in order."""

    def __init__(self):
        self.items = []

    def t(self, label, x, ulp=False):
        """ulp: a sum of weights that is 1 up to its last bit (PyTorch's vectorised Sleef exp and
        libm's differ there, and PyTorch's own sum of a few floats is not the same from one run
        to the next), which decides "1." versus "1.0000": compared by value."""
        s = str(x.detach() if torch.is_tensor(x) else x)
        print(f"{label} {s}" if label else s)
        self.items.append({"kind": "tensor_ulp" if ulp else "tensor", "text": s})

    def text(self, line):
        print(line)
        self.items.append({"kind": "text", "text": line})


def run(fn, kwargs):
    """Runs lesson fn(r, **kwargs) without autograd; returns its items and what it printed."""
    r = Rec()
    buf = io.StringIO()
    with redirect_stdout(buf):
        with torch.no_grad():
            fn(r, **kwargs)
    return r.items, buf.getvalue()


def write_json(path, data, indent=1, ensure_ascii=False):
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=indent, ensure_ascii=ensure_ascii)
        fh.write("\n")


def write_lessons(folder, lessons):
    """lessons.json and <lesson>.txt: every (name, fn) of lessons at its text's own sizes."""
    recorded = {}
    for name, fn in lessons:
        recorded[name], printed = run(fn, {})
        with open(os.path.join(folder, name + ".txt"), "w", encoding="utf-8") as fh:
            fh.write(printed)
    write_json(os.path.join(folder, "lessons.json"), recorded)


def shape_flags(kwargs):
    """dict(B=1, head_size=3, trace=True) -> "--B 1 --head-size 3 --trace"."""
    flags = []
    for k, v in kwargs.items():
        flag = "--" + k.replace("_", "-")
        flags.append(flag if v is True else f"{flag} {v}")
    return " ".join(flags)


def write_shapes(folder, lessons, shapes):
    """lessons_shapes.json and shapes.txt: every (name, kwargs) of shapes, run by lessons' fn."""
    fns = dict(lessons)
    runs = []
    people = io.StringIO()
    for name, kwargs in shapes:
        items, printed = run(fns[name], kwargs)
        flags = shape_flags(kwargs)
        runs.append({"lesson": name, "flags": flags, "items": items})
        people.write(f"$ scratchgpt lesson {name} {flags}\n{printed}\n")
    write_json(os.path.join(folder, "lessons_shapes.json"), runs)
    with open(os.path.join(folder, "shapes.txt"), "w", encoding="utf-8") as fh:
        fh.write(people.getvalue())


def save_print_cases(folder, cases, strings):
    """print_cases.safetensors (the tensors) and print_cases.json (their str())."""
    safetensors_io.save(os.path.join(folder, "print_cases.safetensors"), cases)
    write_json(os.path.join(folder, "print_cases.json"), strings, ensure_ascii=True)


def module_fixture(folder, name, module, x, seed):
    """Saves the module's weights, x, a random upstream gradient, the output and all gradients."""
    x = x.clone().requires_grad_(True)
    out = module(x)
    g = torch.Generator().manual_seed(seed)
    dout = torch.randn(out.shape, generator=g)
    (out * dout).sum().backward()
    tensors = {"x": x, "out": out, "dout": dout, "dx": x.grad}
    for pname, p in module.named_parameters():
        tensors["param." + pname] = p
        tensors["grad." + pname] = p.grad
    os.makedirs(os.path.join(folder, "modules"), exist_ok=True)
    safetensors_io.save(os.path.join(folder, "modules", name + ".safetensors"), tensors)


def seeded_fixture(folder, name, make, x, seed):
    """torch.manual_seed(seed); m = make() (init draws); m(x) in training mode (dropout draws)."""
    torch.manual_seed(seed)
    module = make()
    module.train()
    with torch.no_grad():
        out = module(x)
    tensors = {"x": x, "out": out}
    for pname, p in module.named_parameters():
        tensors["param." + pname] = p
    safetensors_io.save(os.path.join(folder, "modules", name + ".safetensors"), tensors)

