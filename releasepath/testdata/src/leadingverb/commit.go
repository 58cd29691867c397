package leadingverb

import (
	"context"
	"errors"

	"wrapper/closers"
)

var errEmpty = errors.New("empty blob")

// contentWriter is containerd's content.Writer: Commit always closes it, even on error.
type contentWriter struct{}

func (*contentWriter) Write(b []byte) (int, error) { return len(b), nil }
func (*contentWriter) Commit(size int64) error     { return nil }
func (*contentWriter) Close() error                { return nil }

type contentStore struct{}

func OpenWriter(s contentStore, ref string) (*contentWriter, error) { return &contentWriter{}, nil }

// cacheBlob closes the writer on each failure and commits it on success: Commit ends what
// Open began, as Close does (buildkit's ReferrersProviderBuffer.ReaderAt).
func cacheBlob(s contentStore, b []byte) error {
	cw, err := OpenWriter(s, "ref")
	if err != nil {
		return err
	}
	if _, err := cw.Write(b); err != nil {
		cw.Close()
		return err
	}
	if err := cw.Commit(int64(len(b))); err != nil {
		cw.Close()
		return err
	}
	return nil
}

// cacheBlobEmpty forgets the writer when the blob is empty: neither Commit nor Close runs.
func cacheBlobEmpty(s contentStore, b []byte) error {
	cw, err := OpenWriter(s, "ref")
	if err != nil {
		return err
	}
	if len(b) == 0 {
		return errEmpty // want `return may skip cw.Commit \(OpenWriter at line 43\)`
	}
	if err := cw.Commit(int64(len(b))); err != nil {
		cw.Close()
		return err
	}
	return nil
}

// openCommitter opens a writer of another package's interface.
func openCommitter(ctx context.Context, s contentStore) (closers.Committer, error) {
	return nil, nil
}

// cacheImported commits through another package's helper, whose fact says it commits w.
func cacheImported(ctx context.Context, s contentStore, b []byte) error {
	w, err := OpenCommitter(ctx, s)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		w.Close()
		return err
	}
	return closers.CommitOnly(ctx, w)
}

// OpenCommitter is openCommitter under an acquire verb.
func OpenCommitter(ctx context.Context, s contentStore) (closers.Committer, error) {
	return openCommitter(ctx, s)
}
