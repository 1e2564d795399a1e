#!/usr/bin/env python3
"""rooflens diff --format dot (the graph of a comparison in Graphviz): the
DOT text is well formed (every string closed, braces balanced); one box per
layer of the new model and per layer only the old one has; each box filled
in the colour of its change from the core's table of kinds
(core/src/diff_graph.c) and labelled with the change; on widen_old/widen_new
exactly the widened layer and its consumers cost more and the two tensors
that grew are drawn heavy with both shapes; on diff_old/diff_new fc_extra
is added and the edge the new model lacks is dashed; a model against itself
draws every box "same" and no marked edge.
    tests/cli/diff_dot.py path/to/rooflens REPO_ROOT"""
import re
import subprocess
import sys

CLI, ROOT = sys.argv[1], sys.argv[2]
M = f"{ROOT}/tests/fixtures/models"
KIND_COLOR = {m.group(1): m.group(2) for m in re.finditer(
    r'\[CH_\w+\]\s*=\s*\{"(\w+)",.*?"(#[0-9a-f]{6})"\}', open(f"{ROOT}/core/src/diff_graph.c").read(), re.S)}
fails = 0


def check(cond, what):
    global fails
    if not cond:
        fails += 1
        print("FAIL:", what, file=sys.stderr)


def dot(old, new):
    r = subprocess.run([CLI, "diff", old, new, "--hw", "jetson-agx-orin", "--format", "dot"], capture_output=True, text=True)
    check(r.returncode == 0, f"diff --format dot exits 0 ({r.returncode}): {r.stderr}")
    return r.stdout


def parse(text):
    """Nodes {id: attrs} and edges [(from, to, attrs)] of the DOT text."""
    check(text.startswith("strict digraph") and text.rstrip().endswith("}"), "a digraph")
    check(text.count('"') % 2 == 0, "every string closed")
    nodes, edges = {}, []
    for line in text.splitlines():
        m = re.match(r'\s+(\w+) -> (\w+) \[(.*)\];$', line)
        if m:
            edges.append((m.group(1), m.group(2), m.group(3)))
            continue
        m = re.match(r'\s+([nr]\d+) \[(.*)\];$', line)
        if m:
            nodes[m.group(1)] = m.group(2)
    return nodes, edges


def label(attrs):
    return re.search(r'label="((?:[^"\\]|\\.)*)"', attrs).group(1)


def kind(attrs):
    return re.search(r'tooltip="(\w+)"', attrs).group(1)


check(set(KIND_COLOR) >= {"added", "removed", "slower", "faster", "same"}, f"the core's kinds: {KIND_COLOR}")

# one layer widened
nodes, edges = parse(dot(f"{M}/widen_old.onnx", f"{M}/widen_new.onnx"))
check(len(nodes) == 8, f"8 boxes, got {len(nodes)}")
changed = sorted(label(a).split("\\n")[1] for a in nodes.values() if kind(a) != "same")
check(changed == sorted(["/block1/fc1/MatMul", "/block1/act/Relu", "/block1/fc2/MatMul"]), f"changed: {changed}")
for a in nodes.values():
    k = kind(a)
    check(f'fillcolor="{KIND_COLOR[k]}' in a, f"{k} box filled in the core's colour: {a}")
    check(label(a).split("\\n")[2].startswith(k + ":"), f"the label says the change: {label(a)}")
shape = [e for e in edges if "penwidth=2.5" in e[2]]
check(len(shape) == 2 and all('label="[4, 32] -> [4, 64]"' in e[2] for e in shape), f"two grown tensors: {shape}")
check(len(edges) == 7, f"7 edges of the chain, got {len(edges)}")

# added layer, removed edge
nodes, edges = parse(dot(f"{M}/diff_old.onnx", f"{M}/diff_new.onnx"))
added = [label(a).split("\\n")[1] for a in nodes.values() if kind(a) == "added"]
check(added == ["fc_extra"], f"added: {added}")
check(any("style=dashed" in e[2] for e in edges), "the edge fc2 -> act the new model lacks is dashed")

# a model against itself
nodes, edges = parse(dot(f"{M}/widen_old.onnx", f"{M}/widen_old.onnx"))
check(nodes and all(kind(a) == "same" for a in nodes.values()), "against itself every box is the same")
check(not any("penwidth" in e[2] or "dashed" in e[2] for e in edges), "and no edge is marked")

sys.exit(1 if fails else 0)
