//go:build unix

package svcsandbox

import (
	"io/fs"
	"os/exec"
	"syscall"
)

// ownProcessGroup puts the server in a process group of its own, so that stopping it reaches
// what it started too (npx runs the server as its child).
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends SIGTERM (or SIGKILL) to the server's process group.
func signalGroup(cmd *exec.Cmd, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}

func isExecutable(info fs.FileInfo) bool { return info.Mode()&0o111 != 0 }
