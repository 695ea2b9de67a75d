package elfx

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// decoding are the parts of debug/elf that read an ELF file or decode its
// raw headers: a package that uses them decodes ELF itself.
var decoding = map[string]bool{
	"NewFile": true, "Open": true, "File": true, "Section": true, "Prog": true,
	"Header32": true, "Header64": true, "Section32": true, "Section64": true,
	"Prog32": true, "Prog64": true, "Chdr32": true, "Chdr64": true,
	"Dyn32": true, "Dyn64": true, "Rel32": true, "Rel64": true,
	"Rela32": true, "Rela64": true, "Sym32": true, "Sym64": true,
}

// TestOneDecoder: elfx is the one package that reads ELF headers. No other
// non-test Go file of the module opens a file with debug/elf or uses its
// raw header structures (its constants and names are fine).
func TestOneDecoder(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	files := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != root && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".")) || p == filepath.Join(root, "elfx") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		files++
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		name := ""
		for _, im := range f.Imports {
			if path, _ := strconv.Unquote(im.Path.Value); path == "debug/elf" {
				name = "elf"
				if im.Name != nil {
					name = im.Name.Name
				}
			}
		}
		if name == "" {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && (x.Name == name || name == ".") && decoding[sel.Sel.Name] {
					bad = append(bad, fset.Position(sel.Pos()).String()[len(root)+1:]+": "+x.Name+"."+sel.Sel.Name)
				}
			}
			return true
		})
		if name == "." || name == "_" {
			bad = append(bad, rel+": imports debug/elf as "+name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("walked only %d Go files under %s", files, root)
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("debug/elf decodes ELF outside elfx:\n%s", strings.Join(bad, "\n"))
	}
}
