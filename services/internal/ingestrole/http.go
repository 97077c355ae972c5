package ingestrole

import (
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/source/webhook"
	"github.com/alternayte/queuebox/services/internal/wiring"
)

// httpInbox maps the inbox block onto what every HTTP source shares.
func httpInbox(in config.Inbox) webhook.Inbox {
	return webhook.Inbox{BasePath: in.BasePath, MaxBodyBytes: in.MaxBodyBytes}
}

// httpSources maps the sources of kind http onto the options of the HTTP
// source, in name order. Each source is named by its key, without writing
// into cfg: a source built by code may leave Name empty.
func httpSources(cfg *config.Config) []webhook.Source {
	names := sourcesOf(cfg, config.KindHTTP)
	out := make([]webhook.Source, 0, len(names))
	for _, name := range names {
		src := *cfg.Sources[name]
		src.Name = name
		out = append(out, httpSource(&src))
	}
	return out
}

// httpSource maps one HTTP source, whose Name is set.
func httpSource(src *config.Source) webhook.Source {
	path := "sources." + src.Name + ".path"
	out := webhook.Source{
		Receive: receiveSource(src), Path: src.Path, Auth: wiring.AuthOptions(src.Auth),
		PathSetting: path + " (" + config.PathToEnvKey(path) + ")",
	}
	if src.RateLimit != nil {
		out.RequestsPerMinute = src.RateLimit.RequestsPerMinute
	}
	return out
}
