// Package atomicfile replaces a file so that a reader, or the file system
// after a crash, sees either the old content or the complete new content,
// never a truncated mix.
//
// The content goes to a temporary file in the target's own directory (a
// rename is only atomic within one file system), which is synced, closed
// and renamed over the target; then the directory is synced, because the
// rename is an entry in the directory and is not durable until the
// directory itself is flushed. On any failure the temporary file is
// removed and the error names the target path and the step that failed,
// not the temporary name.
//
// Write is for content produced by one function; Create returns a File
// for writers that stream large outputs (catalogs, backups), which end
// with Commit, CommitNoReplace or Abort.
//
// # Why not a library
//
// github.com/google/renameio/v2 and github.com/natefinch/atomic were
// checked first. Neither syncs the parent directory after the rename:
// renameio's PendingFile.CloseAtomicallyReplace stops at os.Rename
// (tempfile.go lines 150-171 at c1c62ad; its pull request #42 adding a
// directory sync is unmerged) and natefinch/atomic's WriteFile ends with
// ReplaceFile, a bare os.Rename (atomic.go line 69 and file_unix.go at
// 59b8c27). natefinch/atomic takes only an io.Reader, so a streamed backup
// would need a pipe and a goroutine; neither has the create-only commit
// that `arena backup` needs to refuse replacing a file that appeared while
// it was writing; both report failures under the temporary name.
package atomicfile
