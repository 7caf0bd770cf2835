// Package docs holds no code: it is the folder of perfgate's reference
// pages (README.md is the index), and its tests keep them in step with the
// code. docs_test.go fails when a configuration key, a field of a JSON
// format (result, comparison, sizing, manifest), or an input or output of
// action.yml is missing from its page, or when a page documents one that
// no longer exists; when a default or range on the page differs from the
// code's; when an example on a page no longer parses; when a link or
// anchor does not resolve; and when a page in docs/ is missing from the
// index.
package docs
