package yamlenv

import (
	"regexp"
	"strings"
)

// placeholder matches ${NAME} and ${NAME:-fallback}. NAME stops at "}" and
// at ":"; a fallback runs to the first "}".
var placeholder = regexp.MustCompile(`\$\{([^}:]*)(:-([^}]*))?\}`)

// expand resolves the placeholders of one value from the process
// environment. A placeholder whose variable is unset or empty takes its
// fallback, as in a POSIX shell; without a fallback an unset variable is an
// error that names the key and the variable, never a value.
func (d *decoder) expand(path Path, text string) (string, bool) {
	if !strings.Contains(text, "${") {
		return text, true
	}
	ok := true
	out := placeholder.ReplaceAllStringFunc(text, func(m string) string {
		parts := placeholder.FindStringSubmatch(m)
		name, hasFallback, fallback := strings.TrimSpace(parts[1]), parts[2] != "", parts[3]
		if name == "" {
			d.add(path, "holds an empty placeholder ${}: write ${NAME} or ${NAME:-fallback}")
			ok = false
			return ""
		}
		value, set := d.environ[name]
		switch {
		case set && (value != "" || !hasFallback):
			return value
		case hasFallback:
			return fallback
		default:
			d.add(path, "the placeholder ${%s} names the environment variable %s, which is not set; set it or write ${%s:-fallback}", name, name, name)
			ok = false
			return ""
		}
	})
	return out, ok
}

// filePrefix marks a secret that the decoder reads from a file.
const filePrefix = "file:"

// secretText resolves a file: reference of a secret field. The file is read
// once per load, and one trailing newline (\n or \r\n) is removed, because
// editors and `echo` add one. An unreadable file is an error that names the
// key and the path; the content never appears in a message.
func (d *decoder) secretText(path Path, text string) (string, bool) {
	ref, isFile := strings.CutPrefix(text, filePrefix)
	if !isFile {
		return text, true
	}
	file := strings.TrimSpace(ref)
	if cached, ok := d.secretFiles[file]; ok {
		return cached, true
	}
	if file == "" {
		d.add(path, "the file: reference names no path")
		return "", false
	}
	data, err := d.readFile(file)
	if err != nil {
		d.add(path, "cannot read the secret file %s: %v", file, err)
		return "", false
	}
	value := string(data)
	if s, ok := strings.CutSuffix(value, "\r\n"); ok {
		value = s
	} else {
		value = strings.TrimSuffix(value, "\n")
	}
	d.secretFiles[file] = value
	return value, true
}
