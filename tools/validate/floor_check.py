#!/usr/bin/env python3
"""Checks that every fitted forecast of a forecast validation run is
physically possible against what was measured: no speed-of-light floor
above the measured time (a floor no run can beat), no forecast below its
floor, no band (low_s) reaching below the floor.

    tools/validate/floor_check.py OUT

OUT is tools/validate/forecast.sh's scratch folder: its
forecast-summary.json (the measured times, fastest run kernel by kernel,
per setup) and fits/<setup>/<fit>/<model>.json (the CLI's answer for every
model under every fit). Prints one line per setup and exits 1 when any
check fails, so that forecast.sh stops on an impossible figure."""
import json
import os
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    summary = json.load(open(os.path.join(out, 'forecast-summary.json')))
    failed = False
    # each setup's fits, and those with the probe models where they were made
    for setup in ('disabled', 'all', 'disabled+probes', 'all+probes'):
        measured = summary['setups'][setup.split('+')[0]]['measured']
        fits_dir = os.path.join(out, 'fits', setup)
        if '+' in setup and not os.path.isdir(fits_dir):
            continue
        n = 0
        ratios = []
        above, below, band_below = [], [], []
        for fit in sorted(os.listdir(fits_dir)):
            folder = os.path.join(fits_dir, fit)
            if not os.path.isdir(folder):
                continue
            for name in sorted(os.listdir(folder)):
                model = name[:-5]
                if not name.endswith('.json') or model not in measured:
                    continue
                answer = json.load(open(os.path.join(folder, name)))
                fc = answer.get('forecast') or {}
                floor, time_s, low = fc.get('floor_s'), fc.get('time_s'), fc.get('low_s')
                if not answer.get('ok') or floor is None or time_s is None:
                    continue
                n += 1
                where = f'{model} under {fit}'
                ratios.append((measured[model] / floor, where))
                if floor > measured[model]:
                    above.append(where)
                if time_s < floor:
                    below.append(where)
                if low is not None and low < floor:
                    band_below.append(where)
        if not n:
            print(f'{setup}: no fitted forecast found under {fits_dir}')
            failed = True
            continue
        least = min(ratios)
        print(f'{setup}: {n} fitted forecasts; floor above the measured time: {len(above)}; '
              f'forecast below its floor: {len(below)}; band below the floor: {len(band_below)}; '
              f'smallest measured / floor {least[0]:.2f} ({least[1]})')
        for what, names in (('floor above the measured time', above), ('forecast below its floor', below),
                            ('band below the floor', band_below)):
            for w in names[:10]:
                print(f'  {what}: {w}')
        failed = failed or bool(above or below or band_below)
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
