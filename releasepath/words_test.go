package releasepath

import (
	"slices"
	"testing"
)

func TestWordsSplitsCamelCase(t *testing.T) {
	for _, c := range []struct {
		name string
		want []string
	}{
		{"HoldAddress", []string{"Hold", "Address"}},
		{"RLock", []string{"R", "Lock"}},
		{"RUnlock", []string{"R", "Unlock"}},
		{"TryRLock", []string{"Try", "R", "Lock"}},
		{"holdAddressV1201", []string{"hold", "Address", "V1201"}},
		{"HTTPServer", []string{"HTTP", "Server"}},
		{"closeFD", []string{"close", "FD"}},
		{"x", []string{"x"}},
		{"Écrire", []string{"Écrire"}},
		{"ouvrirÉcran", []string{"ouvrir", "Écran"}},
		{"ÉCRANFermé", []string{"ÉCRAN", "Fermé"}},
	} {
		if got := words(c.name); !slices.Equal(got, c.want) {
			t.Errorf("words(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestIsReleaseVerbNameTakesWholeVerbs(t *testing.T) {
	for _, c := range []struct {
		name  string
		verbs []string
		want  bool
	}{
		{"releaseOwn", []string{"Release"}, true},
		{"ReleaseAddress", []string{"Release"}, true},
		{"RUnlock", []string{"Unlock"}, false},
		{"Unlock", []string{"RUnlock"}, false},
		{"runlock", []string{"RUnlock"}, false},
		{"rUnlockAll", []string{"RUnlock"}, true},
		{"Releasable", []string{"Release"}, false},
		{"closeQuietly", []string{"Delete", "Close"}, true},
	} {
		if got := isReleaseVerbName(c.name, c.verbs); got != c.want {
			t.Errorf("isReleaseVerbName(%q, %q) = %v, want %v", c.name, c.verbs, got, c.want)
		}
	}
}
