package outfile

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Exit ends the process when a signal interrupted a run: 128 plus the
// signal's number (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP), as a
// shell reports a process a signal killed. Tests replace it; when it
// returns, the handler goes on listening.
var Exit = os.Exit

// caught are the signals the handler takes: the ways a user or a system
// ends a command (Ctrl-C, kill, a closed terminal), each of which would
// otherwise leave the temporary files, tens of megabytes, behind. A
// signal ignored when the process started (SIGHUP under nohup, SIGINT in
// a background job) stays ignored: handling it would end a run the user
// asked to survive it.
var caught = func() []os.Signal {
	var sigs []os.Signal
	for _, s := range []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	return sigs
}()

// reg is every open Set that holds a temporary file or wants OnSignal,
// and the handler installed while there is one.
var reg struct {
	mu    sync.Mutex
	sets  map[*Set]bool
	ch    chan os.Signal
	stop  chan struct{}
	dying bool // a signal is being handled: no Set may start
}

// register adds s to the Sets the handler cleans up, installing the
// handler for the first one.
func register(s *Set) error {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.dying {
		return errInterrupted
	}
	if reg.sets[s] {
		return nil
	}
	if reg.sets == nil {
		reg.sets = map[*Set]bool{}
	}
	if len(reg.sets) == 0 {
		reg.ch, reg.stop = make(chan os.Signal, 1), make(chan struct{})
		// SIGPIPE too: Go kills a process that writes to a closed pipe
		// on stdout or stderr (… | head -1), which leaves the temporary
		// files behind, unless it is notified of SIGPIPE. The commands
		// that hold temporary files write to no pipe of their own, so a
		// SIGPIPE is their reader gone: the run ends as it did, quietly
		// with 141, its temporary files removed first.
		signal.Notify(reg.ch, append(caught, syscall.SIGPIPE)...)
		go listen(reg.ch, reg.stop)
	}
	reg.sets[s] = true
	return nil
}

// unregister removes s, uninstalling the handler after the last Set, so
// that the signals' default actions are back once no temporary file is
// left.
func unregister(s *Set) {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if !reg.sets[s] {
		return
	}
	delete(reg.sets, s)
	if len(reg.sets) == 0 && reg.ch != nil {
		signal.Stop(reg.ch)
		close(reg.stop)
		reg.ch, reg.stop = nil, nil
	}
}

// listen waits for a signal until stop is closed. A signal that came in
// just before is still handled: the user asked to stop.
func listen(ch chan os.Signal, stop chan struct{}) {
	for {
		select {
		case sig := <-ch:
			handle(sig)
		case <-stop:
			select {
			case sig := <-ch:
				handle(sig)
			default:
			}
			return
		}
	}
}

// handle removes the temporary files of every registered Set, calls their
// OnSignal (not for a SIGPIPE: the reader that would be told is gone), and
// exits with 128+signal.
func handle(sig os.Signal) {
	reg.mu.Lock()
	reg.dying = true
	var sets []*Set
	for s := range reg.sets {
		sets = append(sets, s)
	}
	reg.mu.Unlock()
	for _, s := range sets {
		s.interrupt()
	}
	for _, s := range sets {
		if s.OnSignal != nil && sig != syscall.SIGPIPE {
			s.OnSignal(sig)
		}
	}
	code := 128 + int(syscall.SIGTERM)
	if n, ok := sig.(syscall.Signal); ok {
		code = 128 + int(n)
	}
	Exit(code)
	// Reached only when a test replaced Exit.
	reg.mu.Lock()
	reg.dying = false
	reg.mu.Unlock()
}
