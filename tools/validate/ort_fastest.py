#!/usr/bin/python3
"""An ONNX Runtime profile cut down to its fastest run, for a machine that
other work shares (tools/validate/forecast.sh):

    /usr/bin/python3 tools/validate/ort_fastest.py IN.profile.json OUT.profile.json

Keeps the session's own events, the warm-up run (the first model_run, which
rooflens leaves out) and the fastest of the other runs, whose kernels each
take the shortest time that kernel (the same node, the same place in the
run) took in any run after the warm-up: on a loaded machine a kernel that a
time slice of another process interrupted is slower by that slice, not by
its own work, and the fastest of N is the closest to its own; they are laid
end to end in the run's order. The run's
wall time is made the same way: those kernels' times plus the least time
outside kernels (the runtime's own, between them) of any kept run, laid
before each kernel in the share the kept runs show at that place
(gaps_before_kernels). On 2
cores that 20 other processes share, the fastest whole run of ResNet-18 took
103 ms, its kernels' fastest times 27 ms: a whole run is never one time
slice, a kernel often is. Standard library only.
"""
import json
import sys


def runs_of(events):
    spans = sorted((e["ts"], e["ts"] + e["dur"], e) for e in events
                   if e.get("cat") == "Session" and e.get("name") == "model_run")
    return spans


def inside(e, span):
    return span[0] <= e["ts"] <= span[1]


def is_kernel(e):
    return e.get("cat") == "Node" and e.get("name", "").endswith("_kernel_time")


def gaps_before_kernels(events, kept, fastest, outside):
    """The time outside kernels, `outside`, laid before each kernel of the
    fastest run (and after its last) in the shares the kept runs show: the
    median over them of the time before the kernel at each place. The
    runtime's time after a kernel grows with that kernel (docs/model.md
    §12.5), and spreading it evenly would hide that from the fit."""
    def kernels_of(span):
        return sorted((e for e in events if is_kernel(e) and inside(e, span)), key=lambda e: e["ts"])
    n = len(kernels_of(fastest))
    per_place = [[] for _ in range(n + 1)]
    for span in kept:
        ks = kernels_of(span)
        if len(ks) != n or n == 0:
            continue
        ends = [span[0]] + [e["ts"] + e["dur"] for e in ks]
        starts = [e["ts"] for e in ks] + [span[1]]
        for i in range(n + 1):
            per_place[i].append(max(starts[i] - ends[i], 0))
    shares = [sorted(v)[len(v) // 2] if v else 0 for v in per_place]
    total = sum(shares)
    if total <= 0:
        return [outside / (n + 1)] * (n + 1)
    return [outside * s / total for s in shares]


def main():
    src, dst = sys.argv[1], sys.argv[2]
    with open(src) as f:
        events = json.load(f)
    spans = runs_of(events)
    if len(spans) < 3:
        with open(dst, "w") as f:
            json.dump(events, f)
        return
    warm, kept = spans[0], spans[1:]
    fastest = min(kept, key=lambda s: s[2]["dur"])
    # each kernel's shortest time over the kept runs, by (name, occurrence)
    best = {}
    for span in kept:
        seen = {}
        for e in events:
            if e.get("cat") == "Node" and inside(e, span):
                k = (e["name"], seen.get(e["name"], 0))
                seen[e["name"]] = k[1] + 1
                best[k] = min(best.get(k, e["dur"]), e["dur"])
    def kernels_in(span):
        return sum(e["dur"] for e in events if e.get("cat") == "Node" and inside(e, span))
    outside = min(s[2]["dur"] - kernels_in(s) for s in kept)
    wall = sum(best.values()) + max(outside, 0)
    gap = gaps_before_kernels(events, kept, fastest, max(outside, 0))
    clock = fastest[0]
    out, seen, n_laid = [], {}, 0
    for e in events:
        in_run = [s for s in spans if inside(e, s)]
        if not in_run:
            out.append(e)
        elif in_run[0] is warm:
            out.append(e)
        elif in_run[0] is fastest:
            if e.get("cat") == "Node":
                k = (e["name"], seen.get(e["name"], 0))
                seen[e["name"]] = k[1] + 1
                if is_kernel(e):
                    clock += gap[min(n_laid, len(gap) - 1)]
                    n_laid += 1
                e = dict(e, dur=best.get(k, e["dur"]), ts=int(clock))
                clock += e["dur"]
            elif e.get("cat") == "Session":
                e = dict(e, dur=wall)
            out.append(e)
    with open(dst, "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
