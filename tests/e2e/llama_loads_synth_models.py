"""Loads `tokscope synth-model` files into the real llama.cpp (PyPI llama-cpp-python) and runs them.

Usage: python llama_loads_synth_models.py TOKSCOPE_BINARY WORK_DIR [VOCAB_GGUF]

For every architecture synth-model writes (llama, qwen2, qwen3, gemma3, phi3) and every format
(q4_0, q8_0, f16), it writes a model, loads it with llama.cpp, evaluates a prompt, checks that the
last position's logits are all finite, and generates a few tokens. With VOCAB_GGUF (the PyPI
Gemma 3 model) it also checks --vocab-from: the copied tokenizer must give the same token ids as
the real model's. Exits non-zero with the failing case named; prints one line per case.
"""

import math
import os
import subprocess
import sys

from llama_cpp import Llama

# (catalog shape, quant): every architecture in q4_0, and every format on the smallest shape.
CASES = [
    ("Gemma-3-270M", "q4_0"),
    ("Gemma-3-270M", "q8_0"),
    ("Gemma-3-270M", "f16"),
    ("Qwen2.5-0.5B", "q4_0"),
    ("Qwen3-0.6B", "q4_0"),
    ("TinyLlama-1.1B", "q4_0"),
    ("Phi-3-mini-4k", "q4_0"),
]


def synth(binary, work, shape, quant, extra=()):
    out = os.path.join(work, f"{shape}-{quant}.gguf")
    cmd = [binary, "synth-model", "--shape", shape, "--quant", quant, "--out", out, *extra]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return out


def check_runs(path):
    model = Llama(model_path=path, n_ctx=128, n_threads=2, n_batch=64, verbose=False)
    tokens = model.tokenize(b"Hello world, this is a test", add_bos=True)
    model.eval(tokens)
    logits = model.scores[model.n_tokens - 1]
    bad = [x for x in logits if not math.isfinite(float(x))]
    if bad:
        raise AssertionError(f"{len(bad)} non-finite logits after the prompt")
    model.reset()
    out = model.create_completion("Hello", max_tokens=4, temperature=0.0)
    n = out["usage"]["completion_tokens"]
    if n < 1:
        raise AssertionError("generated no token")
    return len(tokens), n


def main():
    binary, work = sys.argv[1], sys.argv[2]
    vocab = sys.argv[3] if len(sys.argv) > 3 else None
    os.makedirs(work, exist_ok=True)
    failures = 0
    for shape, quant in CASES:
        path = None
        try:
            path = synth(binary, work, shape, quant)
            n_prompt, n_out = check_runs(path)
            print(f"ok   {shape} {quant}: loaded, {n_prompt} prompt tokens, finite logits, "
                  f"{n_out} generated", flush=True)
        except Exception as e:  # noqa: BLE001 - report every case, fail at the end
            failures += 1
            print(f"FAIL {shape} {quant}: {e}", flush=True)
        finally:
            if path and os.path.exists(path):
                os.remove(path)
    if vocab:
        path = None
        try:
            path = synth(binary, work, "Gemma-3-270M", "q4_0", ("--vocab-from", vocab))
            check_runs(path)
            text = b"The quick brown fox jumps over the lazy dog."
            real = Llama(model_path=vocab, vocab_only=True, verbose=False).tokenize(text)
            ours = Llama(model_path=path, vocab_only=True, verbose=False).tokenize(text)
            if real != ours:
                raise AssertionError(f"token ids differ: real {real} vs synthetic {ours}")
            print(f"ok   Gemma-3-270M q4_0 --vocab-from: same {len(real)} token ids as the real "
                  "model", flush=True)
        except Exception as e:  # noqa: BLE001
            failures += 1
            print(f"FAIL --vocab-from {vocab}: {e}", flush=True)
        finally:
            if path and os.path.exists(path):
                os.remove(path)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
