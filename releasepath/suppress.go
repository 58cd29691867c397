package releasepath

import (
	"go/ast"
	"go/token"
	"regexp"
	"strings"
)

// suppressedAt reports whether a comment on the line of pos, or on the line above it,
// silences releasepath there: //releasepath:ok <reason> or //nolint:releasepath. A
// //releasepath:ok without a reason does not count, nor a longer word (//releasepath:okay).
func (p *pkgChecker) suppressedAt(pos token.Pos) bool {
	tf := p.pass.Fset.File(pos)
	if tf == nil {
		return false
	}
	lines := p.comments[tf]
	line := tf.Line(pos)
	for _, l := range []int{line, line - 1} {
		for _, c := range lines[l] {
			if p.silences(c) {
				return true
			}
		}
	}
	return false
}

func (p *pkgChecker) silences(text string) bool {
	if p.isNolint(text) {
		return true
	}
	rest, ok := directiveRest(text, "releasepath:ok")
	// Without a reason the directive does not count: the finding stays, and says why.
	return ok && strings.TrimSpace(rest) != ""
}

// directiveRest reports whether the comment text is the directive, the way Go writes
// directives (//go:generate): the comment starts with "//" and the directive, with no space
// between, followed by the end of the comment or by a space and what it returns, the
// reason. A comment that mentions the directive in a sentence (// TODO: releasepath:ok
// maybe, // Do not add //releasepath:handoff here.) is prose, and a longer word
// (//releasepath:okay) is another word.
func directiveRest(text, directive string) (string, bool) {
	rest, ok := strings.CutPrefix(text, "//"+directive)
	if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
		return "", false
	}
	return rest, true
}

// nolintDirective is golangci-lint's //nolint directive in the form its nolintlint accepts,
// with no space after the //: //nolint or //nolint:a,b, optionally followed by "// reason".
// The list of linters is the first group.
var nolintDirective = regexp.MustCompile(`^//nolint(?::(\s*[\w-]+\s*(?:,\s*[\w-]+\s*)*))?\s*(?://.*)?$`)

// isNolint reports whether a comment is a //nolint directive that covers releasepath: a
// bare //nolint, //nolint:all, or a list that names releasepath. The Analyzer honours it
// itself except under golangci-lint (Config.GolangciLint), whose own filter applies //nolint
// and whose nolintlint reports a directive as unused when the finding it silences never
// reached it. A comment that only mentions nolint (// the old code had a nolint here) is
// prose.
func (p *pkgChecker) isNolint(text string) bool {
	if p.cfg.golangci {
		return false
	}
	m := nolintDirective.FindStringSubmatch(strings.TrimRight(text, " \t"))
	if m == nil {
		return false
	}
	if m[1] == "" {
		return true // a bare //nolint covers every linter
	}
	for _, name := range strings.Split(m[1], ",") {
		if name = strings.ToLower(strings.TrimSpace(name)); name == "releasepath" || name == "all" {
			return true
		}
	}
	return false
}

// funcSuppressed reports whether the function is marked as returning with the resource on
// purpose: //releasepath:handoff (or //nolint:releasepath) in its doc comment, or on the
// line of a function literal or the line above it.
func (p *pkgChecker) funcSuppressed(fn ast.Node, doc *ast.CommentGroup) bool {
	if lit, ok := fn.(*ast.FuncLit); ok {
		tf := p.pass.Fset.File(lit.Pos())
		line := tf.Line(lit.Pos())
		for _, l := range []int{line, line - 1} {
			for _, c := range p.comments[tf][l] {
				if hasDirective(c, "releasepath:handoff") || p.isNolint(c) {
					return true
				}
			}
		}
	}
	if doc == nil {
		return false
	}
	_, isLit := fn.(*ast.FuncLit)
	for _, c := range doc.List {
		// The enclosing function's //nolint covers its literals; its handoff does not.
		if (!isLit && hasDirective(c.Text, "releasepath:handoff")) || p.isNolint(c.Text) {
			return true
		}
	}
	return false
}

func hasDirective(text, directive string) bool {
	_, ok := directiveRest(text, directive)
	return ok
}
