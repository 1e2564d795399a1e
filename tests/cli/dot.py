#!/usr/bin/env python3
"""rooflens --format dot (the graph view in Graphviz): for models with and
without modules and with hostile names, the DOT text is well formed (every
string closed, braces balanced), has one node per layer of the JSON answer,
one edge per tensor that one layer writes and another reads (worked out here
from the layer rows), clusters whose labels are prefixes of the names of the
layers inside them, and colours from the core's table of bounds (each layer
in its own bound's: the launch-bound mlp in the launch floor's); a layer of
no work is folded as docs/api.md says (worked out here again from the rows:
into its one consumer, the constants box, or the one box it reads); a study or the LLM view
with --format dot is a usage error.
    tests/cli/dot.py path/to/rooflens REPO_ROOT"""
import json
import re
import subprocess
import sys

CLI, ROOT = sys.argv[1], sys.argv[2]
# the core's one table of bounds: [RL_BOUND_X] = {"id", "name", "meaning", "#rrggbb"}
BOUND_COLOR = {m.group(1): m.group(2) for m in re.finditer(
    r'\[RL_BOUND_\w+\]\s*=\s*\{"(\w+)",.*?"(#[0-9a-f]{6})"\}', open(f"{ROOT}/core/src/words.c").read(), re.S)}
COLORS = set(BOUND_COLOR.values())
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


def folded_rows(layers):
    """Where each layer is drawn, from the rows alone: its own row, its one
    consumer's (a layer of no work with one consumer), or "constants" (a
    layer of no work, fed by constants only, read by several)."""
    writer = {t["name"]: i for i, layer in enumerate(layers) for t in layer["outputs"]}
    producers = [{writer[t["name"]] for t in layer["inputs"] if writer.get(t["name"], i) != i} for i, layer in enumerate(layers)]
    consumers = [set() for _ in layers]
    for i, ps in enumerate(producers):
        for p in ps:
            consumers[p].add(i)
    const, at = [False] * len(layers), list(range(len(layers)))

    def box(p, i):
        """Where producer p of layer i is drawn, so far: a row, "constants", or i."""
        while at[p] not in ("constants", p, i):
            p = at[p]
        return at[p] if at[p] in ("constants", i) else p

    for i, layer in enumerate(layers):  # the fixtures' rows are in topological order
        none = layer["bound"] == "none"
        const[i] = none and all(const[p] for p in producers[i])
        if none and len(consumers[i]) == 1:
            at[i] = next(iter(consumers[i]))
        elif none and len(consumers[i]) > 1 and const[i]:
            at[i] = "constants"
        elif none and len(consumers[i]) > 1:
            boxes = {box(p, i) for p in producers[i]} - {"constants", i}
            if len(boxes) == 1:  # a view read by several: into the one box it reads
                at[i] = boxes.pop()
    for i in range(len(layers)):
        while at[i] != "constants" and at[at[i]] != at[i]:
            at[i] = at[at[i]]
    return at


def check_model(model):
    rc, text, err = dot_of(model)
    check(rc == 0 and text.startswith("strict digraph "), f"{model}: dot output ({rc}: {err.strip()})")
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
    at = folded_rows(layers)
    shown = [i for i in range(len(layers)) if at[i] == i]
    check(sorted(nodes) == shown, f"{model}: one node per layer not folded ({len(nodes)} for {len(shown)})")
    for i, c in nodes.items():
        check(c == BOUND_COLOR[layers[i]["bound"]], f"{model}: {layers[i]['name']} in its bound's colour ({c}, {layers[i]['bound']})")
    check(("constants [" in text) == ("constants" in at), f"{model}: a constants box when constants fold into it")
    edges = {(a, b) for a, b in re.findall(r"^\s+(n\d+|constants) -> (n\d+|constants) ", text, re.M)}
    writer = {}
    for i, layer in enumerate(layers):
        for t in layer["outputs"]:
            writer[t["name"]] = i
    box = lambda i: "constants" if at[i] == "constants" else f"n{at[i]}"
    want = {(box(writer[t["name"]]), box(i)) for i, layer in enumerate(layers) for t in layer["inputs"]
            if writer.get(t["name"], i) != i and box(writer[t["name"]]) not in ("constants", box(i))}
    check(edges == want, f"{model}: the edges are the tensors between boxes ({len(edges)} for {len(want)})")
    return at
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
            check(at[int(m.group(1))] == int(m.group(1)), f"{model}: a folded layer is no node of a cluster")
            check(all(name.startswith(p + "/") for p in stack), f"{model}: {name} lies in {stack}")
        if line.strip() == "}" and stack:
            stack.pop()


M = f"{ROOT}/tests/fixtures/models"
clusters = 0
folded = 0
for model in ["transformer_block.onnx", "conv_net.onnx", "control_flow.onnx", "formula_names.onnx",
              "torch/vit_b_16.onnx", "mlp.onnx"]:
    at = check_model(f"{M}/{model}") or []
    clusters += dot_of(f"{M}/{model}")[1].count("subgraph")
    folded += sum(a != i for i, a in enumerate(at))
check_model(f"{ROOT}/tests/fixtures/hostile/strings.onnx")
check(folded > 400, f"the layers of no work fold ({folded}; ViT-B/16 alone has 411 Constants)")
# the launch-bound mlp is drawn in the launch floor's colour, never the fallback
_, text, _ = dot_of(f"{M}/mlp.onnx")
fills = set(re.findall(r'fillcolor="(#[0-9a-f]{6})', text))
check(fills == {BOUND_COLOR["overhead"]}, f"mlp (launch-bound) is drawn in the launch floor's colour: {fills}")
check(clusters > 5, f"the models with modules have clusters ({clusters})")
rc, _, err = dot_of(f"{M}/mlp.onnx", "--sweep-batch", "1,2")
check(rc == 2 and "not dot" in err, f"a study with --format dot is a usage error ({rc}: {err.strip()})")
print(f"cli dot: {'ok' if not fails else f'{fails} failed'}")
sys.exit(1 if fails else 0)
