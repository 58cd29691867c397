package releasepath

import (
	"go/ast"
	"go/token"
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

// directiveRest finds the exact directive in a comment, followed by a space or the end of
// the comment (//releasepath:okay is another word), and returns what follows it.
func directiveRest(text, directive string) (string, bool) {
	body := strings.TrimSpace(strings.TrimPrefix(text, "//"))
	for off := 0; ; {
		i := strings.Index(body[off:], directive)
		if i < 0 {
			return "", false
		}
		i += off
		rest := body[i+len(directive):]
		off = i + len(directive)
		if i > 0 && body[i-1] != ' ' && body[i-1] != '\t' && body[i-1] != '/' {
			continue
		}
		if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
			continue
		}
		return rest, true
	}
}

// isNolint reports whether a comment is a //nolint directive that covers releasepath, which
// the Analyzer honours itself except under golangci-lint (Config.GolangciLint), whose own
// filter applies //nolint and whose nolintlint reports a directive as unused when the
// finding it silences never reached it.
func (p *pkgChecker) isNolint(text string) bool {
	if p.cfg.golangci {
		return false
	}
	body := strings.TrimSpace(strings.TrimPrefix(text, "//"))
	i := strings.Index(body, "nolint")
	if i < 0 || (i > 0 && body[i-1] != ' ') {
		return false
	}
	rest := body[i+len("nolint"):]
	if rest == "" || rest[0] == ' ' {
		return true // a bare //nolint covers every linter
	}
	if rest[0] != ':' {
		return false
	}
	list, _, _ := strings.Cut(rest[1:], " ")
	for _, name := range strings.Split(list, ",") {
		if name == "releasepath" || name == "all" {
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
