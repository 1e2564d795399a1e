#!/usr/bin/python3
"""A GroupQueryAttention whose local_window_size no context reaches (2^63 - 1
tokens) attends to every key: the LLM view answers as for the same decoder
without a window (-1), figure for figure, and lists no windowed cache. Its
window once broke the decode sum's breakpoints (a double past int64's range
cast to int64: undefined, and in a release build a decode step at a past of
4.6e18 tokens, refused as dim_overflow).

    tests/cli/llm_window_none.py path/to/rooflens LLM_MODELS_DIR
Needs Debian's python3-onnx (to set the attribute)."""
import json
import os
import subprocess
import sys
import tempfile

import onnx


def llm(cli, path):
    out = subprocess.run([cli, path, "--hw", "h100-sxm", "--llm", "--format", "json"], capture_output=True, text=True)
    answer = json.loads(out.stdout)
    assert answer["ok"], "%s: %s" % (path, answer.get("error"))
    return answer["llm"]


def main():
    cli, models = sys.argv[1], sys.argv[2]
    plain = os.path.join(models, "tiny_genai.onnx")
    m = onnx.load(plain, load_external_data=False)
    windows = 0
    for n in m.graph.node:
        for a in n.attribute:
            if n.op_type == "GroupQueryAttention" and a.name == "local_window_size":
                assert a.i == -1, "tiny_genai.onnx already has a window"
                a.i = 2**63 - 1
                windows += 1
    assert windows > 0, "no GroupQueryAttention in tiny_genai.onnx"
    with tempfile.TemporaryDirectory() as tmp:
        huge = os.path.join(tmp, "huge_window.onnx")
        onnx.save(m, huge)
        a, b = llm(cli, plain), llm(cli, huge)
    assert b["kv_cache_windows"] == [], b["kv_cache_windows"]
    for key in ("kv_cache_bytes", "kv_cache_bytes_per_token", "max_context", "max_context_memory"):
        assert a[key] == b[key], "%s: %s without a window, %s with one of 2^63 - 1" % (key, a[key], b[key])
    for phase in ("prefill", "decode"):
        assert a[phase] == b[phase], "%s: %s without a window, %s with one of 2^63 - 1" % (phase, a[phase], b[phase])
    print("a window of 2^63 - 1 tokens on %d attentions: the same answer as none" % windows)


if __name__ == "__main__":
    main()
