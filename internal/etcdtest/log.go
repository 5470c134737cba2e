package etcdtest

import (
	"errors"
	"net"
	"net/http"
	"os"
	"strings"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// logger is etcd's server logger: errors only, as JSON lines on stderr,
// without the errors that every shutdown of an embedded member logs.
var logger = zap.New(quietCore{zapcore.NewCore(
	zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()),
	zapcore.Lock(os.Stderr),
	zapcore.ErrorLevel,
)})

// quietCore drops the "setting up serving from embedded etcd failed."
// errors that embed.Etcd.Close logs for each of its listeners and servers
// ("use of closed network connection", "http: Server closed", "mux:
// server closed") although nothing failed.
type quietCore struct{ zapcore.Core }

func (c quietCore) With(fields []zapcore.Field) zapcore.Core {
	return quietCore{c.Core.With(fields)}
}

func (c quietCore) Check(ent zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(ent.Level) {
		return ce.AddCore(ent, c)
	}
	return ce
}

func (c quietCore) Write(ent zapcore.Entry, fields []zapcore.Field) error {
	if ent.Message == "setting up serving from embedded etcd failed." {
		for _, f := range fields {
			if err, ok := f.Interface.(error); ok && f.Type == zapcore.ErrorType && closedErr(err) {
				return nil
			}
		}
	}
	return c.Core.Write(ent, fields)
}

func closedErr(err error) bool {
	return errors.Is(err, net.ErrClosed) || errors.Is(err, http.ErrServerClosed) ||
		strings.Contains(err.Error(), "mux: server closed")
}
