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
outside kernels (the runtime's own, between them) of any kept run. On 2
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
    n_fast = sum(1 for e in events if e.get("cat") == "Node" and inside(e, fastest))
    step = max(outside, 0) / (n_fast + 1)   # the time outside kernels, spread between them
    clock = fastest[0]
    out, seen = [], {}
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
                clock += step
                e = dict(e, dur=best.get(k, e["dur"]), ts=int(clock))
                clock += e["dur"]
            elif e.get("cat") == "Session":
                e = dict(e, dur=wall)
            out.append(e)
    with open(dst, "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
