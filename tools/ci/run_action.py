#!/usr/bin/python3
"""Runs the steps of the composite GitHub Action (action.yml) on this machine,
for tools/ci/test-action.sh: no GitHub, no act. It reads action.yml, evaluates
each step's `if:` and the ${{ }} expressions of its `env:` with the subset of
GitHub's expression language the file uses (contexts inputs, github,
runner, steps; == != && || ! and format()), runs its `run:` with bash in the
workspace, and passes outputs between steps through $GITHUB_OUTPUT as the
runner does. A `uses:` step (the build cache) is skipped as a cache miss.

  tools/ci/run_action.py --workspace REPO --event EVENT.json [--input NAME=VALUE]...
                [--env NAME=VALUE]...

Needs Debian's python3-yaml (tools/install-deps.sh). Exit status: that of
the first failing step (0 when every step passed); the step outputs are
printed as `steps.ID.outputs.NAME=VALUE` lines.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# ------------------------------------------------------------- expressions --
TOKEN = re.compile(r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<num>\d+(?:\.\d+)?)|(?P<op>==|!=|&&|\|\||[!(),])"
                   r"|(?P<name>[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)*))")


def tokens(text):
    pos, out = 0, []
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = TOKEN.match(text, pos)
        if not m:
            raise SyntaxError(f"cannot read the expression at {text[pos:]!r}")
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


def truthy(v):
    return v not in (None, "", 0, False)


class Expr:
    def __init__(self, text, ctx):
        self.t, self.i, self.ctx = tokens(text), 0, ctx

    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else (None, None)

    def take(self, want=None):
        tok = self.peek()
        if want and tok[1] != want:
            raise SyntaxError(f"expected {want!r}, got {tok[1]!r}")
        self.i += 1
        return tok

    def value(self):
        v = self.or_()
        if self.i != len(self.t):
            raise SyntaxError(f"unexpected {self.peek()[1]!r}")
        return v

    def or_(self):
        v = self.and_()
        while self.peek()[1] == "||":
            self.take()
            w = self.and_()
            v = v if truthy(v) else w
        return v

    def and_(self):
        v = self.unary()
        while self.peek()[1] == "&&":
            self.take()
            w = self.unary()
            v = w if truthy(v) else v
        return v

    def unary(self):
        if self.peek()[1] == "!":
            self.take()
            return not truthy(self.unary())
        v = self.primary()
        if self.peek()[1] in ("==", "!="):
            op = self.take()[1]
            w = self.primary()
            same = str(v if v is not None else "").lower() == str(w if w is not None else "").lower()
            return same if op == "==" else not same
        return v

    def primary(self):
        kind, text = self.take()
        if kind == "str":
            return text[1:-1].replace("''", "'")
        if kind == "num":
            return float(text)
        if text == "(":
            v = self.or_()
            self.take(")")
            return v
        if kind == "name":
            if text in ("true", "false", "null"):
                return {"true": True, "false": False, "null": None}[text]
            if self.peek()[1] == "(":
                self.take()
                args = []
                while self.peek()[1] != ")":
                    args.append(self.or_())
                    if self.peek()[1] == ",":
                        self.take()
                self.take(")")
                if text != "format":
                    raise SyntaxError(f"function {text}() is not supported here")
                return re.sub(r"\{(\d+)\}", lambda m: str(args[1 + int(m.group(1))]), args[0])
            cur = self.ctx
            for part in text.split("."):
                cur = cur.get(part) if isinstance(cur, dict) else None
            return cur
        raise SyntaxError(f"unexpected {text!r}")


def evaluate(text, ctx):
    return Expr(text, ctx).value()


def substitute(text, ctx):
    def one(m):
        v = evaluate(m.group(1), ctx)
        return "" if v is None else ("true" if v is True else "false" if v is False else str(v))
    return re.sub(r"\$\{\{(.*?)\}\}", one, str(text))


def condition(text, ctx):
    text = str(text).strip()
    m = re.fullmatch(r"\$\{\{(.*)\}\}", text)
    return truthy(evaluate(m.group(1) if m else text, ctx))


# ----------------------------------------------------------------- running --
def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workspace", required=True)
    ap.add_argument("--event", required=True, help="the event payload (JSON), as GitHub gives it")
    ap.add_argument("--event-name", default="pull_request")
    ap.add_argument("--input", action="append", default=[])
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--action", default=os.path.join(ROOT, "action.yml"))
    args = ap.parse_args()

    with open(args.action, encoding="utf-8") as f:
        action = yaml.safe_load(f)
    with open(args.event, encoding="utf-8") as f:
        event = json.load(f)
    temp = tempfile.mkdtemp(prefix="rooflens-action-")
    summary = os.path.join(temp, "step-summary.md")
    ctx = {
        "inputs": {},
        "github": {"event_name": args.event_name, "event": event, "token": "local-test-token",
                   "repository": "local/fixture", "sha": event.get("pull_request", {}).get("head", {}).get("sha", ""),
                   "action_path": os.path.dirname(os.path.abspath(args.action)), "workspace": args.workspace},
        "runner": {"temp": temp, "os": "Linux"},
        "steps": {},
    }
    # Inputs: the defaults (themselves expressions, like github.token), then the caller's.
    for name, spec in (action.get("inputs") or {}).items():
        ctx["inputs"][name] = substitute(spec.get("default", ""), ctx)
    for kv in args.input:
        k, _, v = kv.partition("=")
        if k not in ctx["inputs"]:
            sys.exit(f"run-action: action.yml has no input '{k}'")
        ctx["inputs"][k] = v
    extra_env = dict(kv.partition("=")[::2] for kv in args.env)

    status = 0
    for n, step in enumerate(action["runs"]["steps"]):
        sid = step.get("id", f"step{n}")
        name = step.get("name", sid)
        ctx["steps"].setdefault(sid, {"outputs": {}})
        if "if" in step and not condition(step["if"], ctx):
            print(f"[run-action] skip: {name}")
            continue
        if "uses" in step:
            print(f"[run-action] skip: {name} (uses {step['uses']}: a cache miss here)")
            continue
        out_file = os.path.join(temp, f"output-{n}")
        open(out_file, "w").close()
        env = dict(os.environ)
        env.update({"GITHUB_ACTION_PATH": ctx["github"]["action_path"], "GITHUB_OUTPUT": out_file,
                    "GITHUB_STEP_SUMMARY": summary, "GITHUB_WORKSPACE": args.workspace,
                    "GITHUB_REPOSITORY": ctx["github"]["repository"], "GITHUB_EVENT_NAME": args.event_name,
                    "RUNNER_TEMP": temp})
        for k, v in (step.get("env") or {}).items():
            env[k] = substitute(v, ctx)
        env.update(extra_env)
        print(f"[run-action] run: {name}", flush=True)
        rc = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=args.workspace, env=env).returncode
        with open(out_file, encoding="utf-8") as f:
            for line in f:
                k, sep, v = line.rstrip("\n").partition("=")
                if sep:
                    ctx["steps"][sid]["outputs"][k] = v
        if rc:
            print(f"[run-action] step failed ({rc}): {name}")
            status = rc
            break
    for sid, s in ctx["steps"].items():
        for k, v in s["outputs"].items():
            print(f"steps.{sid}.outputs.{k}={v}")
    return status


if __name__ == "__main__":
    sys.exit(main())
