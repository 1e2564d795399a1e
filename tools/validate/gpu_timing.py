"""CUDA timing helpers shared by tools/validate/gpu.py and
tools/validate/llm_decode_gpu.py (both measure a real GPU to set beside rooflens's
figures; neither is part of the tests). Needs PyTorch with CUDA."""
import statistics

import torch


def graphed(fn, warmup=3):
    """fn captured as a CUDA graph (launch overhead removed), after `warmup`
    calls on a side stream as CUDA graph capture requires; returns the
    graph's replay function."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(warmup):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return g.replay


def bench(fn, warmup=5, reps=30):
    """Median time of fn() in seconds, timed with CUDA events, and the spread
    (max - min) over the repetitions."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / 1e3)
    return statistics.median(times), (max(times) - min(times))


def replay_ms(fn, n=200):
    """fn captured in a CUDA graph and replayed back to back: milliseconds per
    replay, the mean over n replays between two events (after 20 warm-up
    replays), so a replay's own gaps are averaged in as a server would see."""
    with torch.no_grad():
        replay = graphed(fn)
        for _ in range(20):
            replay()
        torch.cuda.synchronize()
        t0 = torch.cuda.Event(enable_timing=True)
        t1 = torch.cuda.Event(enable_timing=True)
        t0.record()
        for _ in range(n):
            replay()
        t1.record()
        torch.cuda.synchronize()
        return t0.elapsed_time(t1) / n
