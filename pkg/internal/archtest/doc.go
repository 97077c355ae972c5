// Package archtest holds the test of the import rule of the pkg module.
// It has no code of its own.
//
// The rule: imports flow one way, from the wiring (services) through the
// sources, stores, publishers and loops of pkg to the domain
// (pkg/queuebox), never back. What the test checks of it, on the
// non-test imports:
//
//   - pkg/queuebox imports only the standard library: nothing of ours and
//     no module.
//   - No package under pkg/broker (the publishers, the broker sources,
//     address, failure, brokertest and their sub-packages) reaches
//     github.com/jackc/pgx/v5, github.com/labstack/echo/v4 or
//     pkg/store/postgres, directly or through another package. A broker
//     talks to the inbox through ingest.Receiver and queuebox.InboxStore,
//     never to a dialect or an HTTP server.
//   - pkg/ingest, the transport-neutral receive step, reaches none of
//     them either, nor pkg/run or pkg/config. The HTTP inbox source
//     (pkg/source/webhook) is the package that joins it to echo.
//   - Only the wiring reads the configuration: no package of pkg reaches
//     pkg/config except pkg/config itself, the generator of its reference
//     (pkg/config/internal/gendocs), pkg/run, which loads it, and the
//     store factory pkg/store, which maps the database block. Every other
//     package, test helpers included, takes options of its own, which
//     services/... fill. An exception that stops reaching pkg/config
//     must leave the list (options_test.go).
//   - The two SQL dialects are peers. Nothing under pkg/store/sqlserver,
//     pkg/capture/sqlserver or pkg/wake/sqlserver reaches pgx (or its
//     pgconn) or pglogrepl; nothing under pkg/store/postgres,
//     pkg/capture/postgres or pkg/wake/postgres reaches go-mssqldb; and
//     the shared pkg/capture and pkg/wake reach no driver at all.
//   - Capture and the wake-ups (pkg/capture/..., pkg/wake/...) read no
//     configuration and open no store of their own.
package archtest
