// Package githubapi is the small part of GitHub's REST API perfgate needs:
// keeping one "sticky" comment on a pull request up to date, and one
// running issue about change points on main.
//
// # The sticky comment
//
// A pull request's conversation is its issue's comments. perfgate lists them
// (GET /repos/{owner}/{repo}/issues/{n}/comments?per_page=100, following the
// Link header's rel="next" pages), looks for its own comment and edits it in
// place (PATCH /repos/{owner}/{repo}/issues/comments/{id}); only when none is
// found does it create one (POST .../issues/{n}/comments). One comment per
// pull request, rewritten on every push, instead of a new one each time.
//
// Our comment is the one whose body carries the hidden marker (an HTML
// comment, see Marker) AND whose author is a bot (user.type "Bot", as the
// GITHUB_TOKEN's github-actions[bot] is). Both are required: anyone can paste
// the marker into a comment of their own, and a human's comment must never be
// edited by a workflow.
//
// # The change-point issue
//
// The baseline job with history-issue reports new change points on main
// (ReportChangePoints): it lists the open issues labelled
// ChangePointLabel (GET /repos/{owner}/{repo}/issues?labels=…&state=open,
// pull requests left out) and comments on the one carrying
// ChangePointMarker (else the newest); only when none is open does it open
// one (POST /repos/{owner}/{repo}/issues with title, body and the label).
//
// # Requests
//
// Every request carries "Accept: application/vnd.github+json",
// "X-GitHub-Api-Version: 2022-11-28" and "Authorization: Bearer <token>".
// The base URL is the runner's GITHUB_API_URL (GitHub Enterprise Server has
// its own), passed in by the caller. Pagination links are only followed on
// the base URL's scheme and host, so the token is never sent elsewhere.
//
// # Retries
//
// Server errors (5xx) and secondary rate limits (403 or 429 with Retry-After,
// or with x-ratelimit-remaining: 0) are retried with exponential backoff:
// base, 2×base, 4×base … capped at Retry.MaxDelay, with jitter, for at most
// Retry.MaxAttempts attempts. A Retry-After or x-ratelimit-reset longer than
// Retry.MaxWait is not waited for. Creating a comment is not idempotent, so a
// POST is not retried blindly after a server error: the sticky update lists
// the comments again and edits the comment if the failed POST did land.
//
// A 403 that is not a rate limit is ErrForbidden: on a pull request from a
// fork the workflow's token is read-only. Callers turn it into a warning and
// point at the fork-safe workflow pair.
//
// The token is never printed: it is not part of any error, and Client's
// String method leaves it out.
package githubapi
