#!/usr/bin/env python3
"""Posts or updates the one rooflens comment of a pull request (the GitHub
Action's last step, action.yml). The comment is found by the hidden marker
tools/ci/diff-pr.sh puts in the body, so a new push updates it in place
instead of adding another. Only a comment the token's own user wrote is
taken as ours: a marker planted by anyone else is ignored. Standard library
only.

Environment:
  ROOFLENS_BODY          the Markdown body (a file)
  ROOFLENS_COMMENT_FILE  if set, write the body to this file and post nothing
                         (tools/ci/test-action.sh runs the Action locally so)
  GITHUB_TOKEN, GITHUB_REPOSITORY, ROOFLENS_PR, GITHUB_API_URL
                         where and as whom to post (the runner sets the API URL)

A token that may not comment (a pull request from a fork gets a read-only
one) is a warning, not a failure: the gate is applied either way, and the
body is in the job summary.
"""
import json
import os
import sys
import urllib.error
import urllib.request

MARKER = "<!-- rooflens-diff -->"


def own_login(call):
    """The login the token writes as: GET /user answers for a personal token;
    the job's own token (an app installation) may not read it, and writes as
    github-actions[bot]."""
    try:
        me = call("GET", "/user")
        if isinstance(me, dict) and me.get("login"):
            return me["login"]
    except urllib.error.HTTPError as e:
        if e.code not in (401, 403, 404):
            raise
    return "github-actions[bot]"


def is_ours(comment, me):
    """Our comment: written by the token's user and starting with the marker.
    Anyone may paste the marker into a comment of their own; such a comment
    is neither updated nor taken as ours."""
    return ((comment.get("user") or {}).get("login") == me
            and (comment.get("body") or "").startswith(MARKER))


def main():
    with open(os.environ["ROOFLENS_BODY"], encoding="utf-8") as f:
        body = f.read()
    if not body.startswith(MARKER):
        body = MARKER + "\n" + body
    dest = os.environ.get("ROOFLENS_COMMENT_FILE")
    if dest:
        with open(dest, "w", encoding="utf-8") as f:
            f.write(body)
        print(f"[rooflens] comment written to {dest} (not posted)")
        return 0

    api = os.environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
    repo, pr = os.environ["GITHUB_REPOSITORY"], os.environ["ROOFLENS_PR"]
    token = os.environ.get("GITHUB_TOKEN", "")

    def call(method, path, data=None):
        req = urllib.request.Request(api + path, method=method,
                                     data=json.dumps(data).encode() if data is not None else None)
        req.add_header("Accept", "application/vnd.github+json")
        req.add_header("X-GitHub-Api-Version", "2022-11-28")
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read() or b"null")

    try:
        me = own_login(call)
        found, page = None, 1
        while found is None:
            comments = call("GET", f"/repos/{repo}/issues/{pr}/comments?per_page=100&page={page}")
            found = next((c for c in comments if is_ours(c, me)), None)
            if len(comments) < 100:
                break
            page += 1
        if found:
            call("PATCH", f"/repos/{repo}/issues/comments/{found['id']}", {"body": body})
            print(f"[rooflens] updated comment {found['id']} on #{pr}")
        else:
            made = call("POST", f"/repos/{repo}/issues/{pr}/comments", {"body": body})
            print(f"[rooflens] posted comment {made.get('id')} on #{pr}")
    except urllib.error.HTTPError as e:
        if e.code in (401, 403, 404):
            print(f"::warning title=rooflens::could not comment on #{pr} (HTTP {e.code}: the token may not "
                  "write comments, as for a pull request from a fork); the diff is in the job summary")
            return 0
        print(f"::error title=rooflens::GitHub answered HTTP {e.code} to the comment: {e.read()[:300]!r}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
