// Package yamlenv is the generic engine of the configuration loader: it
// parses a YAML document into an untyped tree (keys as written, merge
// keys resolved, keys written twice reported), merges variables of the
// form PREFIX_A_B__C_0 into it (struct fields, map keys and list
// indexes as path segments, "__" for a literal "_"), and decodes the tree
// into a Go value by reflection (keys in any letter case, ${NAME}
// placeholders, file: secrets, text converted by the type of the field).
//
// It knows no schema of its own: the caller's Schema names the prefix,
// the root type, the secret type, the leaf types it parses and the
// defaults of new entries. Problems come back as *FieldError values that
// name the YAML path and the variable.
package yamlenv
