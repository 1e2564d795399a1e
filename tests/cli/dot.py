#!/usr/bin/env python3
"""rooflens --format dot (the graph view in Graphviz): for models with and
without modules and with hostile names, the DOT text is well formed (every
string closed, braces balanced), has one node per layer of the JSON answer,
one edge per tensor that one layer writes and another reads (worked out here
from the layer rows), clusters whose labels are prefixes of the names of the
layers inside them, and colours from the core's list; a study or the LLM
view with --format dot is a usage error.
    tests/cli/dot.py path/to/rooflens REPO_ROOT"""
import json
import re
import subprocess
import sys

CLI, ROOT = sys.argv[1], sys.argv[2]
COLORS = {"#b34700", "#1a5f96", "#6e6e6e", "#6b3fa0"}  # graph.colors (docs/api.md)
fails = 0


def check(cond, what):
    global fails
    if not cond:
        fails += 1
        print("FAIL:", what, file=sys.stderr)


def tokens(text):
    """The DOT text as strings and single characters; None if a string is left open."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == '"':
            j, s = i + 1, []
            while j < len(text) and text[j] != '"':
                if text[j] == "\\":
                    j += 1
                s.append(text[j] if j < len(text) else "")
                j += 1
            if j >= len(text):
                return None
            out.append(("str", "".join(s)))
            i = j + 1
        else:
            out.append(("chr", c))
            i += 1
    return out


def dot_of(model, *extra):
    r = subprocess.run([CLI, model, "--hw", "h100-sxm", "--format", "dot", *extra], capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout, r.stderr


def check_model(model):
    rc, text, err = dot_of(model)
    check(rc == 0 and text.startswith("digraph "), f"{model}: dot output ({rc}: {err.strip()})")
    res = json.loads(subprocess.run([CLI, model, "--hw", "h100-sxm", "--format", "json"], capture_output=True, text=True).stdout)
    layers = res["layers"]
    toks = tokens(text)
    check(toks is not None, f"{model}: every string is closed")
    if toks is None:
        return
    depth, low = 0, 0
    for kind, v in toks:
        if kind == "chr" and v == "{":
            depth += 1
        elif kind == "chr" and v == "}":
            depth -= 1
            low = min(low, depth)
    check(depth == 0 and low == 0, f"{model}: braces balance")
    nodes = {int(m.group(1)): m.group(2) for m in re.finditer(r'^\s+n(\d+) \[label="(?:[^"\\]|\\.)*", fillcolor="(#[0-9a-f]{6})[0-9a-f]{2}"', text, re.M)}
    check(sorted(nodes) == list(range(len(layers))), f"{model}: one node per layer ({len(nodes)} for {len(layers)})")
    check(set(nodes.values()) <= COLORS, f"{model}: colours from the core's list: {set(nodes.values()) - COLORS}")
    edges = {(int(a), int(b)) for a, b in re.findall(r"^\s+n(\d+) -> n(\d+) ", text, re.M)}
    writer = {}
    for i, layer in enumerate(layers):
        for t in layer["outputs"]:
            writer[t["name"]] = i
    want = {(writer[t["name"]], i) for i, layer in enumerate(layers) for t in layer["inputs"] if writer.get(t["name"], i) != i}
    check(edges == want, f"{model}: the edges are the tensors between layers ({len(edges)} for {len(want)})")
    # clusters: every layer listed inside a cluster has the cluster's label as a prefix of its name
    stack, lines = [], text.splitlines()
    for line in lines:
        m = re.match(r'\s+subgraph "cluster_m\d+" \{', line)
        if m:
            stack.append(None)
            continue
        m = re.match(r'\s+label="((?:[^"\\]|\\.)*)"; color="(#[0-9a-f]{6})"', line)
        if m and stack and stack[-1] is None:
            stack[-1] = m.group(1).replace('\\"', '"').replace("\\\\", "\\")
            check(m.group(2) in COLORS, f"{model}: cluster colour")
            continue
        m = re.match(r"\s+n(\d+);$", line)
        if m and stack:
            name = layers[int(m.group(1))]["name"]
            check(all(name.startswith(p + "/") for p in stack), f"{model}: {name} lies in {stack}")
        if line.strip() == "}" and stack:
            stack.pop()
    return text.count("subgraph")


M = f"{ROOT}/tests/fixtures/models"
clusters = 0
for model in ["transformer_block.onnx", "conv_net.onnx", "control_flow.onnx", "formula_names.onnx"]:
    clusters += check_model(f"{M}/{model}") or 0
check_model(f"{ROOT}/tests/fixtures/hostile/strings.onnx")
check(clusters > 5, f"the models with modules have clusters ({clusters})")
rc, _, err = dot_of(f"{M}/mlp.onnx", "--sweep-batch", "1,2")
check(rc == 2 and "not dot" in err, f"a study with --format dot is a usage error ({rc}: {err.strip()})")
print(f"cli dot: {'ok' if not fails else f'{fails} failed'}")
sys.exit(1 if fails else 0)
