// Package atomicfile writes output files so that a crash or an error never
// leaves a half-written file: the content goes to a temporary file in the
// same directory, which is synced and renamed over the destination only when
// writing succeeded, and the directory is synced after the rename so that
// the new name survives a crash as well as the content. Every file the tool
// writes (models, data sets, plots, reports) goes through Write; Backup keeps
// the previous version of a file that is about to be replaced.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Write creates or replaces path with what write produces. On any error the
// temporary file is removed and path is left as it was. A new file is made
// readable by others (0644), as an ordinary output file; a file that is
// replaced keeps its permission bits. A symbolic link is followed, so that
// its target is replaced and the link stays. Anything else that is not a
// regular file (a directory, a device such as /dev/null, a named pipe) is
// refused: renaming over it would replace the device or pipe itself.
func Write(path string, write func(io.Writer) error) (err error) {
	dest, perm, err := destination(path)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = write(tmp); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), dest); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// The rename is only durable once the directory is: without this a power
	// loss can bring back the old file, or none, although Write returned nil.
	if err := syncDir(filepath.Dir(dest)); err != nil {
		return fmt.Errorf("write %s: the file is written, but its directory could not be synced to disk: %w", path, err)
	}
	return nil
}

// syncDir flushes a directory's entries to disk. It is a variable so that
// the tests can see that Write calls it after the rename.
var syncDir = syncDirOS

// syncDirOS syncs dir, treating "this file system or platform cannot sync a
// directory" as success: there is nothing more to do there.
func syncDirOS(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		if cannotSyncDir(err) {
			return nil
		}
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !cannotSyncDir(err) {
		return err
	}
	return nil
}

// Backup makes path + ".bak" hold the current content of path (the target of
// a symbolic link), replacing an older backup, and returns its name; when
// path does not exist it does nothing and returns "". The backup is a hard
// link where the file system allows one (no copy of a large file; the next
// Write renames a new file over path, so the link keeps the old content),
// else a copy; either way it appears atomically.
func Backup(path string) (string, error) {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	src, _, err := destination(path)
	if err != nil {
		return "", err
	}
	bak := path + ".bak"
	if fi, err := os.Lstat(bak); err == nil && !fi.Mode().IsRegular() {
		return "", fmt.Errorf("backup %s: %s exists and is not a regular file; remove it", path, bak)
	}
	tmp := filepath.Join(filepath.Dir(bak), "."+filepath.Base(bak)+".tmp-link")
	os.Remove(tmp)
	if err := os.Link(src, tmp); err == nil {
		if err := os.Rename(tmp, bak); err != nil {
			os.Remove(tmp)
			return "", fmt.Errorf("backup %s: %w", path, err)
		}
		if err := syncDir(filepath.Dir(bak)); err != nil {
			return "", fmt.Errorf("backup %s: %w", path, err)
		}
		return bak, nil
	}
	f, err := os.Open(src)
	if err != nil {
		return "", fmt.Errorf("backup %s: %w", path, err)
	}
	defer f.Close()
	if err := Write(bak, func(w io.Writer) error { _, err := io.Copy(w, f); return err }); err != nil {
		return "", fmt.Errorf("backup %s: %w", path, err)
	}
	return bak, nil
}

// destination returns the file Write replaces for path (the target of a
// symbolic link) and the permission bits the new content gets.
func destination(path string) (string, os.FileMode, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, 0o644, nil
	}
	if err != nil {
		return "", 0, fmt.Errorf("write %s: %w", path, err)
	}
	dest := path
	if fi.Mode()&fs.ModeSymlink != 0 {
		if dest, err = filepath.EvalSymlinks(path); err != nil {
			return "", 0, fmt.Errorf("write %s: a symbolic link whose target cannot be reached: %w", path, err)
		}
		if fi, err = os.Stat(dest); err != nil {
			return "", 0, fmt.Errorf("write %s: %w", path, err)
		}
	}
	if !fi.Mode().IsRegular() {
		kind := "not a regular file"
		switch t := fi.Mode().Type(); {
		case t&fs.ModeDir != 0:
			kind = "a directory"
		case t&fs.ModeDevice != 0:
			kind = "a device"
		case t&fs.ModeNamedPipe != 0:
			kind = "a named pipe"
		case t&fs.ModeSocket != 0:
			kind = "a socket"
		}
		return "", 0, fmt.Errorf("write %s: it is %s, not a file this program may replace", path, kind)
	}
	return dest, fi.Mode().Perm(), nil
}
