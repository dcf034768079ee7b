// Package filekind names what a path is when it is not the regular file a
// command needs, for refusals that say what was found (a named pipe, whose
// open would block; a device, which never ends; a directory).
package filekind

import "io/fs"

// Of names the kind of a file of mode m, e.g. "a named pipe (FIFO)";
// "a regular file" for one, "not a regular file" for a kind it does not
// name.
func Of(m fs.FileMode) string {
	switch t := m.Type(); {
	case m.IsRegular():
		return "a regular file"
	case t&fs.ModeDir != 0:
		return "a directory"
	case t&fs.ModeSymlink != 0:
		return "a symbolic link"
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeCharDevice != 0:
		return "a character device"
	case t&fs.ModeDevice != 0:
		return "a block device"
	default:
		return "not a regular file"
	}
}
