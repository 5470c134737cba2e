package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/mcpserver"
	"github.com/graft-project/graft/version"
)

func newMCPCmd(a *app) *cobra.Command {
	var httpAddr string
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve graft_prepare, graft_commit, graft_recall, graft_find, graft_status and graft_revert to an agent (MCP over stdio)",
		Long: `Runs a Model Context Protocol server over stdin/stdout for an agent host
(Claude Code, Codex, …). The recovery scan runs before the first request; its
report is in graft_status. stdout carries only protocol; logs go to stderr.

Tools: graft_prepare (review) → show the review to the user → graft_commit
(preparedId, tapeHash); graft_recall reads any seq a tape cites; graft_find
lists the events that hold words (what a tape did not cite); graft_status;
graft_revert. Errors are tool errors whose text starts with a stable code
("graft help exit-codes" lists graft's) and says what to do next.

catalog.db is opened per call, never for the server's life: CLI commands on
the same home run while the server is up.

graft_prepare's tape options default to config.toml's ("graft config").

--http 127.0.0.1:PORT serves streamable HTTP instead, on a loopback address
only (the tools have no authentication of their own).`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if httpAddr != "" {
				if err := mcpserver.CheckLoopback(httpAddr); err != nil {
					return usageError{err}
				}
			}
			log := slog.New(slog.NewTextHandler(a.stderr, nil))
			// Opening the service runs the recovery scan: it finishes before
			// the server reads its first request.
			svc, err := a.service()
			if err != nil {
				return err
			}
			logStartup(log, svc)
			cfg, err := a.config()
			if err != nil {
				return err
			}
			srv := mcpserver.New(svc, mcpserver.Options{Version: version.Get().Short(), Logger: log, Defaults: cfg.TapeOptions()})
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if httpAddr != "" {
				return serveHTTP(ctx, log, srv, httpAddr)
			}
			// Malformed lines are answered with JSON-RPC errors and the
			// server goes on; the SDK's own reader would end the session.
			err = srv.Run(ctx, &mcpserver.StdioTransport{In: a.stdin, Out: a.stdout, Logger: log})
			if errors.Is(err, context.Canceled) {
				return nil // a signal asked the server to stop
			}
			if err != nil {
				return fmt.Errorf("mcp server: %w", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve streamable HTTP on this loopback host:port instead of stdio (e.g. 127.0.0.1:8765)")
	return cmd
}

// logStartup reports the scan on stderr (a.service already warned if it
// left records unresolved).
func logStartup(log *slog.Logger, svc *graft.Service) {
	if r := svc.Startup; r != nil {
		log.Info("start-up recovery scan", "home", svc.Home, "scanned", r.Scanned, "rolledForward", r.RolledForward, "rolledBack", r.RolledBack, "busy", r.Busy, "corrupt", r.Corrupt)
	}
}

func serveHTTP(ctx context.Context, log *slog.Logger, srv *mcp.Server, addr string) error {
	ln, err := mcpserver.ListenLoopback(addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: mcpserver.HTTPHandler(srv), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	log.Info("serving MCP over streamable HTTP", "url", "http://"+ln.Addr().String())
	select {
	case err := <-served:
		return fmt.Errorf("mcp http server on %s: %w", addr, err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil {
		return fmt.Errorf("mcp http server on %s: shutting down: %w", addr, err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("mcp http server on %s: %w", addr, err)
	}
	return nil
}
