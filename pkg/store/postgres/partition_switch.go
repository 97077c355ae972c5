package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// legacySuffix ends the names of the old table's indexes once it is a
// partition; the partitioned table's indexes take their names.
const legacySuffix = "_legacy"

// legacyIndexName is name with legacySuffix, cut to PostgreSQL's 63 bytes.
func legacyIndexName(name string) string {
	const maxIdent = 63
	if len(name)+len(legacySuffix) > maxIdent {
		name = name[:maxIdent-len(legacySuffix)]
	}
	return name + legacySuffix
}

// onClause is the part of an index definition from " ON " on: the table,
// the method, the columns and the predicate.
func onClause(def string) string {
	if i := strings.Index(def, " ON "); i >= 0 {
		return def[i:]
	}
	return def
}

// switchPlan is what the switch reads of the old table under its lock.
type switchPlan struct {
	// indexes are the table's own indexes, the conversion's left out.
	indexes []index
	seqs    []ownedSequence
	// grants are the GRANT statements of its privileges, for the new table.
	grants []string
	// owner is its owner, quoted, when the converting role is not.
	owner string
	pubs  []publication
}

// publication is a publication that publishes the old table.
type publication struct {
	name         string // quoted
	all, viaRoot bool
}

// switchTable makes the table partitioned in one transaction that holds
// ACCESS EXCLUSIVE on it from its first statement to its commit and
// changes the catalog only:
//
//   - rename the old table to <table>_legacy; drop its primary key and
//     unique indexes, make the (id, created_at) index its primary key, and
//     rename its other indexes with _legacy after them;
//   - create the partitioned table with the old table's columns, defaults
//     and checks, and its indexes under their names: the primary key
//     (id, created_at) and every unique index as a plain one, as Partition
//     does;
//   - attach the old table for FROM (MINVALUE) TO (boundary): the
//     validated check proves the range, so nothing is read, and each
//     index of the partitioned table adopts its twin on the old one;
//   - give the sequences, grants and owner to the new table, add the
//     default partition, and make each publication of the old table
//     publish the new one through its root.
//
// The database clock must still be before the boundary, or the check has
// already refused rows: the switch then fails.
func (c *converter) switchTable(ctx context.Context, bound, deadline time.Time) error {
	return c.blocking(ctx, "switch: rename, create the partitioned table, attach the old one", deadline, func(tx pgx.Tx) error {
		var early bool
		if err := tx.QueryRow(ctx, `SELECT now() < $1`, bound).Scan(&early); err != nil {
			return err
		}
		if !early {
			return fmt.Errorf("the boundary %s has passed before the switch: run again with a larger margin", bound.Format(time.RFC3339))
		}
		plan, err := c.readPlan(ctx, tx)
		if err != nil {
			return err
		}
		for _, s := range c.statements(plan, bound) {
			if _, err := tx.Exec(ctx, s); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
		return c.checkAdopted(ctx, tx)
	})
}

func (c *converter) readPlan(ctx context.Context, tx pgx.Tx) (switchPlan, error) {
	var pl switchPlan
	indexes, err := readIndexes(ctx, tx, c.t.quoted)
	if err != nil {
		return pl, err
	}
	pl.indexes = c.own(indexes)
	if pl.seqs, err = readOwnedSequences(ctx, tx, c.t.quoted); err != nil {
		return pl, err
	}
	rows, err := tx.Query(ctx, `SELECT format('GRANT %s ON %s TO %s%s', a.privilege_type, $2::text,
			CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(a.grantee)) END,
			CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END)
		FROM pg_class c CROSS JOIN LATERAL aclexplode(c.relacl) a
		WHERE c.oid = to_regclass($1) AND a.grantee <> c.relowner ORDER BY 1`, c.t.quoted, c.t.quoted)
	if err != nil {
		return pl, fmt.Errorf("read the grants: %w", err)
	}
	if pl.grants, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		return pl, fmt.Errorf("read the grants: %w", err)
	}
	err = tx.QueryRow(ctx, `SELECT CASE WHEN pg_get_userbyid(relowner) = current_user THEN '' ELSE quote_ident(pg_get_userbyid(relowner)) END
		FROM pg_class WHERE oid = to_regclass($1)`, c.t.quoted).Scan(&pl.owner)
	if err != nil {
		return pl, fmt.Errorf("read the owner: %w", err)
	}
	rows, err = tx.Query(ctx, `SELECT quote_ident(p.pubname), p.puballtables, p.pubviaroot FROM pg_publication p
		WHERE p.puballtables OR EXISTS (SELECT 1 FROM pg_publication_rel r WHERE r.prpubid = p.oid AND r.prrelid = to_regclass($1))
		ORDER BY 1`, c.t.quoted)
	if err != nil {
		return pl, fmt.Errorf("read the publications: %w", err)
	}
	pl.pubs, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (publication, error) {
		var p publication
		err := r.Scan(&p.name, &p.all, &p.viaRoot)
		return p, err
	})
	if err != nil {
		return pl, fmt.Errorf("read the publications: %w", err)
	}
	return pl, nil
}

// statements are the switch's statements, in order (see switchTable).
func (c *converter) statements(pl switchPlan, bound time.Time) []string {
	legacy, parent := quoteIdent(c.legacy()), c.t.quoted
	s := []string{"ALTER TABLE " + parent + " RENAME TO " + legacy}
	for _, ix := range pl.indexes {
		switch {
		case ix.unique && ix.constraint != "":
			s = append(s, "ALTER TABLE "+legacy+" DROP CONSTRAINT "+quoteIdent(ix.constraint))
		case ix.unique:
			s = append(s, "DROP INDEX "+quoteIdent(ix.name))
		default:
			s = append(s, "ALTER INDEX "+quoteIdent(ix.name)+" RENAME TO "+quoteIdent(legacyIndexName(ix.name)))
		}
	}
	s = append(s,
		"ALTER TABLE "+legacy+" ADD CONSTRAINT "+quoteIdent(c.pkeyName())+" PRIMARY KEY USING INDEX "+quoteIdent(c.pkeyName()),
		"CREATE TABLE "+parent+" (LIKE "+legacy+" INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMMENTS) PARTITION BY RANGE ("+c.t.createdAt+")",
		"ALTER TABLE "+parent+" DROP CONSTRAINT "+quoteIdent(c.boundName()),
		"ALTER TABLE "+parent+" ADD CONSTRAINT "+quoteIdent(c.t.raw+"_pkey")+" PRIMARY KEY (id, "+c.t.createdAt+")",
	)
	for _, ix := range pl.indexes {
		if !ix.primary {
			s = append(s, plainIndex(ix))
		}
	}
	defaultPart := quoteIdent(c.t.raw + "_default")
	s = append(s,
		"ALTER TABLE "+parent+" ATTACH PARTITION "+legacy+" FOR VALUES FROM (MINVALUE) TO ("+boundLiteral(bound)+")",
		"ALTER TABLE "+legacy+" DROP CONSTRAINT "+quoteIdent(c.boundName()),
		"CREATE TABLE "+defaultPart+" PARTITION OF "+parent+" DEFAULT",
	)
	for _, seq := range pl.seqs {
		s = append(s, "ALTER SEQUENCE "+seq.name+" OWNED BY "+parent+"."+seq.column)
	}
	s = append(s, pl.grants...)
	if pl.owner != "" {
		s = append(s, "ALTER TABLE "+parent+" OWNER TO "+pl.owner, "ALTER TABLE "+defaultPart+" OWNER TO "+pl.owner)
	}
	for _, p := range pl.pubs {
		if !p.all {
			s = append(s, "ALTER PUBLICATION "+p.name+" DROP TABLE "+legacy, "ALTER PUBLICATION "+p.name+" ADD TABLE "+parent)
		}
		if !p.viaRoot {
			s = append(s, "ALTER PUBLICATION "+p.name+" SET (publish_via_partition_root = true)")
		}
	}
	return s
}

// checkAdopted fails the switch when an index of the old table was left
// out or the attach built one instead of adopting its twin: the counts of
// the two tables' indexes must match and every index of the old table
// must belong to one of the new table.
func (c *converter) checkAdopted(ctx context.Context, tx pgx.Tx) error {
	var parent, legacy, loose int
	err := tx.QueryRow(ctx, `SELECT
			(SELECT count(*) FROM pg_index WHERE indrelid = to_regclass($1)),
			(SELECT count(*) FROM pg_index WHERE indrelid = to_regclass($2)),
			(SELECT count(*) FROM pg_index i WHERE i.indrelid = to_regclass($2)
				AND NOT EXISTS (SELECT 1 FROM pg_inherits h WHERE h.inhrelid = i.indexrelid))`,
		c.t.quoted, quoteIdent(c.legacy())).Scan(&parent, &legacy, &loose)
	if err != nil {
		return fmt.Errorf("count the indexes: %w", err)
	}
	if parent != legacy || loose > 0 {
		return fmt.Errorf("the partitioned table has %d indexes and the old one %d, %d of them its own: the switch is undone", parent, legacy, loose)
	}
	return nil
}
