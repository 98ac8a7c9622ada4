// Package write makes a directory on disk hold exactly the files platc
// generated for it, atomically, and tells what would change without
// writing anything (for build --check).
//
// A generated file is one whose content starts with emit.Header. Write
// and Diff consider only those: a generated file that is no longer
// produced is removed, one that changed is replaced, and every other file
// and directory is left as it is. A file platc would write over that does
// not carry the header is a conflict, and nothing is written.
//
// Write never leaves a half-written directory. It builds the complete new
// directory next to the old one (generated files written, every other
// file hard-linked, so its data, mode and modification time stay the
// same), makes it durable (on Linux one syncfs(2) of the file system,
// elsewhere an fsync of every file and directory), and then swaps the two
// with one rename: on Linux renameat2(RENAME_EXCHANGE), which is atomic;
// elsewhere two renames in a row. Until the swap, the old directory is untouched, so a build that
// fails or is killed before it leaves the previous output intact. A
// temporary directory left by a killed build (".<dir>.platc-*" beside the
// output directory) is removed by the next Write into the same place.
//
// Write holds an exclusive lock (flock(2) on ".<dir>.platc.lock" beside
// the directory) for all of this, so a second build into the same
// directory fails at once with BusyError instead of corrupting it. The
// lock file is also a journal of the temporary trees the holder creates,
// and recovery removes only what a journal names: a file of the user's
// that merely looks like a leftover is never touched (lock.go).
//
// Existing files are read and compared by a few goroutines at once (a
// 10,000-app platform has over 10,000 files), and an error reported is
// always that of the first file in order that failed.
//
// It does not decide what to generate or where (the build command does),
// and it never follows symbolic links inside the output directory: they
// are carried over as links.
package write
