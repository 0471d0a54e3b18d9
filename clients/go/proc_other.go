//go:build !unix

package svcsandbox

import (
	"io/fs"
	"os/exec"
)

// Without process groups, the server process alone is stopped; its stdin closing ends the rest.
func ownProcessGroup(cmd *exec.Cmd) {}

func signalGroup(cmd *exec.Cmd, kill bool) { _ = cmd.Process.Kill() }

func isExecutable(fs.FileInfo) bool { return true }
