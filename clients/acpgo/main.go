// Command acpgo is evtool's ACP test client on the Go SDK
// (github.com/coder/acp-go-sdk), as a Go editor would use it: it spawns
// `evtool acp replay FILE`, initializes, and then either opens a session
// and sends PROMPTS prompts (mode "prompt"), answering every permission
// request with its first option, or loads the recorded session SESSION
// (mode "load"), or opens CANCELS sessions and in each sends a prompt and
// at once session/cancel, answering every permission request cancelled
// (mode "cancel"), or lists the sessions (session/list, for the project
// /work/project, as an editor builds its history) and loads the first one
// (mode "list").
//
// It prints one JSON object: the params of every session/update and
// session/request_permission it received and the result of every prompt,
// as their exact bytes (read off the wire beside the SDK), with the number
// of updates the SDK's typed client accepted, how long initialize took,
// and whether the agent offers session/load. With EVTOOL_CLIENT_SUMMARY=1
// it keeps no message, only their count and the longest line's length.
//
// usage: acpgo EVTOOL FILE prompt PROMPTS [evtool flags...]
//
//	acpgo EVTOOL FILE load SESSION [evtool flags...]
//	acpgo EVTOOL FILE cancel CANCELS [evtool flags...]
//	acpgo EVTOOL FILE list - [evtool flags...]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/tidwall/gjson"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "acpgo:", err)
		os.Exit(1)
	}
}

// received is what the client prints.
type received struct {
	Updates      []json.RawMessage `json:"updates"`
	Permissions  []json.RawMessage `json:"permissions"`
	Results      []json.RawMessage `json:"results"`
	TypedUpdates int               `json:"typedUpdates"`
	UpdateCount  int               `json:"updateCount"`
	MaxLine      int               `json:"maxLine"`
	InitMs       float64           `json:"initMs"`
	LoadSession  bool              `json:"loadSession"`
	ListSessions bool              `json:"listSessions"` // session/list is offered
	Listed       []acp.SessionInfo `json:"listed"`
}

func run(args []string) error {
	if len(args) < 4 || (args[2] != "prompt" && args[2] != "load" && args[2] != "cancel" && args[2] != "list") {
		return errors.New("usage: acpgo EVTOOL FILE prompt|load|cancel|list PROMPTS|SESSION|CANCELS|- [evtool flags...]")
	}
	evtool, file, mode, arg := args[0], args[1], args[2], args[3]
	cmd := exec.Command(evtool, append(append([]string{"acp", "replay"}, args[4:]...), file)...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	got := &received{Updates: []json.RawMessage{}, Permissions: []json.RawMessage{}, Results: []json.RawMessage{}}
	wire := &recorder{got: got, summary: os.Getenv("EVTOOL_CLIENT_SUMMARY") == "1"}
	c := &client{cancelling: mode == "cancel", cancelSent: map[acp.SessionId]chan struct{}{}}
	prompted := make(chan struct{}, 1)
	conn := acp.NewClientSideConnection(c, &watch{w: stdin, prompted: prompted}, io.TeeReader(stdout, wire))
	conn.SetLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	ctx := context.Background()

	t0 := time.Now()
	init, err := conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber, ClientCapabilities: acp.ClientCapabilities{}})
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	got.InitMs = float64(time.Since(t0).Microseconds()) / 1000
	got.LoadSession = init.AgentCapabilities.LoadSession
	got.ListSessions = init.AgentCapabilities.SessionCapabilities.List != nil
	switch mode {
	case "load":
		if _, err := conn.LoadSession(ctx, acp.LoadSessionRequest{SessionId: acp.SessionId(arg), Cwd: "/", McpServers: []acp.McpServer{}}); err != nil {
			return fmt.Errorf("session/load: %w", err)
		}
	case "list":
		project := "/work/project"
		list, err := conn.ListSessions(ctx, acp.ListSessionsRequest{Cwd: &project})
		if err != nil {
			return fmt.Errorf("session/list: %w", err)
		}
		got.Listed = list.Sessions
		if len(list.Sessions) == 0 {
			return errors.New("session/list lists no session")
		}
		if _, err := conn.LoadSession(ctx, acp.LoadSessionRequest{SessionId: list.Sessions[0].SessionId, Cwd: project, McpServers: []acp.McpServer{}}); err != nil {
			return fmt.Errorf("session/load: %w", err)
		}
	case "cancel":
		n, err := strconv.Atoi(arg)
		if err != nil {
			return err
		}
		for i := range n {
			sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: "/", McpServers: []acp.McpServer{}})
			if err != nil {
				return fmt.Errorf("session/new: %w", err)
			}
			// The prompt goes out, and the cancel right after it, before
			// its answer: an editor's stop button pressed at once.
			sent := c.cancelled(sess.SessionId)
			res := make(chan error, 1)
			go func() {
				_, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId,
					Prompt: []acp.ContentBlock{acp.TextBlock("prompt " + strconv.Itoa(i+1))}})
				res <- err
			}()
			<-prompted
			if err := conn.Cancel(ctx, acp.CancelNotification{SessionId: sess.SessionId}); err != nil {
				return fmt.Errorf("session/cancel: %w", err)
			}
			close(sent)
			if err := <-res; err != nil {
				return fmt.Errorf("session/prompt %d: %w", i+1, err)
			}
		}
	default:
		n, err := strconv.Atoi(arg)
		if err != nil {
			return err
		}
		sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: "/", McpServers: []acp.McpServer{}})
		if err != nil {
			return fmt.Errorf("session/new: %w", err)
		}
		for i := range n {
			if _, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId,
				Prompt: []acp.ContentBlock{acp.TextBlock("prompt " + strconv.Itoa(i+1))}}); err != nil {
				return fmt.Errorf("session/prompt %d: %w", i+1, err)
			}
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("evtool: %w", err)
	}
	wire.mu.Lock()
	defer wire.mu.Unlock()
	c.mu.Lock()
	got.TypedUpdates = c.updates
	c.mu.Unlock()
	b, err := json.Marshal(got)
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(append(b, '\n'))
	return err
}

// recorder keeps, from the agent's bytes as the SDK reads them, the exact
// params and results the test compares.
type recorder struct {
	mu      sync.Mutex
	part    []byte
	got     *received
	summary bool // count and measure only (EVTOOL_CLIENT_SUMMARY=1)
}

func (r *recorder) Write(b []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.part = append(r.part, b...)
	for {
		i := bytes.IndexByte(r.part, '\n')
		if i < 0 {
			return len(b), nil
		}
		line := r.part[:i]
		r.got.MaxLine = max(r.got.MaxLine, len(line))
		if r.summary {
			if bytes.Contains(line[:min(len(line), 64)], []byte(`"method":"session/update"`)) {
				r.got.UpdateCount++
			}
			r.part = append(r.part[:0], r.part[i+1:]...)
			continue
		}
		m := gjson.ParseBytes(line)
		switch {
		case m.Get("method").Str == "session/update":
			r.got.UpdateCount++
			r.got.Updates = append(r.got.Updates, json.RawMessage(m.Get("params").Raw))
		case m.Get("method").Str == "session/request_permission":
			r.got.Permissions = append(r.got.Permissions, json.RawMessage(m.Get("params").Raw))
		case m.Get("result.stopReason").Exists():
			r.got.Results = append(r.got.Results, json.RawMessage(m.Get("result").Raw))
		}
		r.part = append(r.part[:0], r.part[i+1:]...)
	}
}

// watch tells when a prompt has been written to the agent.
type watch struct {
	w        io.Writer
	prompted chan struct{}
}

func (w *watch) Write(b []byte) (int, error) {
	n, err := w.w.Write(b)
	if bytes.Contains(b, []byte(`"method":"session/prompt"`)) {
		select {
		case w.prompted <- struct{}{}:
		default:
		}
	}
	return n, err
}

// client answers the agent as a minimal editor: the first option of every
// permission request; no file system or terminal. In mode cancel it
// answers only once its cancel is on the wire, and still with the first
// option: a turn that ends other than cancelled lost the cancel.
type client struct {
	mu         sync.Mutex
	updates    int
	cancelling bool
	cancelSent map[acp.SessionId]chan struct{} // closed once the session's cancel is sent
}

// cancelled returns the channel closed once the session's cancel is sent.
func (c *client) cancelled(id acp.SessionId) chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancelSent[id] == nil {
		c.cancelSent[id] = make(chan struct{})
	}
	return c.cancelSent[id]
}

func (c *client) SessionUpdate(_ context.Context, _ acp.SessionNotification) error {
	c.mu.Lock()
	c.updates++
	c.mu.Unlock()
	return nil
}

func (c *client) RequestPermission(_ context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	if c.cancelling {
		<-c.cancelled(p.SessionId)
	}
	if len(p.Options) == 0 {
		return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Cancelled: &acp.RequestPermissionOutcomeCancelled{Outcome: "cancelled"}}}, nil
	}
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Selected: &acp.RequestPermissionOutcomeSelected{
		OptionId: p.Options[0].OptionId, Outcome: "selected"}}}, nil
}

var errNo = errors.New("the test client offers no file system or terminal")

func (c *client) ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{}, errNo
}

func (c *client) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, errNo
}

func (c *client) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, errNo
}

func (c *client) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, errNo
}

func (c *client) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, errNo
}

func (c *client) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, errNo
}

func (c *client) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, errNo
}
