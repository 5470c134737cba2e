// Package docs holds the project's design document, DESIGN.md, and a test
// that keeps the code's citations of it honest: every "docs/DESIGN.md §n"
// (or "DESIGN §n") in a .go, .txtar or .md file of the module must name a
// numbered heading that DESIGN.md has. The package has no code.
package docs
