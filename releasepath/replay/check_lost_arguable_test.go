package main

import "testing"

// TestCheckFailsOnALostArguableVerdict: "-check  exit 1 on an untriaged finding or a lost real
// or arguable one". A verdict of arguable that nothing reports any more is such a loss.
func TestCheckFailsOnALostArguableVerdict(t *testing.T) {
	const mv = "example.com/m@v1.0.0"
	vs := []verdict{{modver: mv, pos: "a.go:20", acq: "Lock:10 → mu.Unlock", word: "arguable", why: "w"}}
	s := judge(codebase{half: "tune", modver: mv}, 1000, measurement{}, vs)
	if len(s.lost) != 1 {
		t.Fatalf("%d verdicts lost, want 1", len(s.lost))
	}
	if p := (&report{scores: []*score{s}}).problems(); p == "" {
		t.Errorf("-check passes although an arguable verdict is no longer reported")
	}
}
