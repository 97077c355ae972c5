package redact_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/redact"
)

func TestRedactKnownValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		secrets []string
		in      string
		want    string
	}{
		{"no secrets", nil, "plain text", "plain text"},
		{"empty secret ignored", []string{""}, "plain text", "plain text"},
		{"every occurrence", []string{"hunter2"}, "a hunter2 b hunter2", "a *** b ***"},
		{"short value", []string{"ab"}, "xaby", "x***y"},
		{"one char value", []string{"q"}, "aqa", "a***a"},
		{"nested values", []string{"abc", "abcdef"}, "xabcdefy", "x***y"},
		{"overlapping values", []string{"abcdef", "defghi"}, "xabcdefghiy", "x***y"},
		{"adjacent values merge", []string{"abc", "def"}, "abcdef", "***"},
		{"overlapping occurrences", []string{"aa"}, "aaa b", "*** b"},
		{"regex characters are literal", []string{"a.b*c"}, "a.b*c axbbc", "*** axbbc"},
		{"query escaped form", []string{"s3cr&t !"}, "client_x=s3cr%26t+%21", "client_x=***"},
		{"path escaped form", []string{"a b/c"}, "/x/a%20b%2Fc/y", "/x/***/y"},
		{"json escaped form", []string{`p"w\d`}, `{"msg":"p\"w\\d"}`, `{"msg":"***"}`},
		{"utf-8 value", []string{"pässwörd"}, "is pässwörd.", "is ***."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, redact.New(tc.secrets...).Redact(tc.in))
		})
	}
}

func TestRedactKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"json password", `{"password":"x1","user":"bob"}`, `{"password":"***","user":"bob"}`},
		{"json spaced access_token", `{"access_token": "eyJ.a.b", "expires_in": 3600}`, `{"access_token": "***", "expires_in": 3600}`},
		{"json key case", `{"Client_Secret":"v"}`, `{"Client_Secret":"***"}`},
		{"json escaped quote", `{"token":"a\"b","x":1}`, `{"token":"***","x":1}`},
		{"json empty value stays", `{"password":""}`, `{"password":""}`},
		{"json number", `{"pwd": 123456}`, `{"pwd": ***}`},
		{"json null stays", `{"token": null}`, `{"token": null}`},
		{"json single quotes", `{'api_key': 'k1'}`, `{'api_key': '***'}`},
		{"json unterminated", `{"refresh_token":"abc`, `{"refresh_token":"***`},
		{"json other key", `{"tokenizer":"x","secretary":"y"}`, `{"tokenizer":"x","secretary":"y"}`},
		{"every key name", `{"passwd":"1","secret":"2","id_token":"3","apikey":"4","api-key":"5","x-api-key":"6","cookie":"7","set-cookie":"8","proxy-authorization":"9","authorization":"10"}`,
			`{"passwd":"***","secret":"***","id_token":"***","apikey":"***","api-key":"***","x-api-key":"***","cookie":"***","set-cookie":"***","proxy-authorization":"***","authorization":"***"}`},
		{"form body", "grant_type=client_credentials&client_secret=s3&scope=a", "grant_type=client_credentials&client_secret=***&scope=a"},
		{"query string", "GET /x?api_key=k&v=1", "GET /x?api_key=***&v=1"},
		{"form at start", "password=p&x=1", "password=***&x=1"},
		{"form longer name stays", "mytoken=1&tokens=2", "mytoken=1&tokens=2"},
		{"form inside json string", `{"msg":"bad token=abc"}`, `{"msg":"bad token=***"}`},
		{"authorization bearer line", "Authorization: Bearer abc.def", "Authorization: Bearer ***"},
		{"authorization basic line", "authorization: Basic dXNlcjpwYXNz\r\nX-Other: 1", "authorization: Basic ***\r\nX-Other: 1"},
		{"api key header line", "X-Api-Key: k-123\nAccept: */*", "X-Api-Key: ***\nAccept: */*"},
		{"cookie lines", "Cookie: a=1; b=2\nSet-Cookie: s=3; Path=/", "Cookie: ***\nSet-Cookie: ***"},
		{"indented yaml line", "  password: hunter2", "  password: ***"},
		{"bearer in sentence", "rejected Bearer eyJhbGciOi.x.y for user", "rejected Bearer *** for user"},
		{"basic in sentence", "sent basic dXNlcjpwYXNz twice", "sent basic *** twice"},
		{"bearer prose stays", "Bearer token required", "Bearer token required"},
		{"basic prose stays", "Basic authentication failed", "Basic authentication failed"},
		{"xml element", "<password>p1</password>", "<password>***</password>"},
		{"url user info", "dial amqp://guest:pa55@rabbit:5672/", "dial amqp://guest:***@rabbit:5672/"},
		{"no credential", "upstream returned 503", "upstream returned 503"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, redact.New().Redact(tc.in))
		})
	}
}

func TestNilRedactorAppliesKeyRules(t *testing.T) {
	t.Parallel()
	var r *redact.Redactor
	require.Equal(t, `{"token":"***"}`, r.Redact(`{"token":"t"}`))
	require.Equal(t, "a *** b", r.With("x1").Redact("a x1 b"))
}

func TestWithKeepsOriginal(t *testing.T) {
	t.Parallel()
	base := redact.New("alpha")
	ext := base.With("beta")
	require.Equal(t, "*** ***", ext.Redact("alpha beta"))
	require.Equal(t, "*** beta", base.Redact("alpha beta"))
}

func TestRedactTruncated(t *testing.T) {
	t.Parallel()
	r := redact.New("supersecret", "other")
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"split secret at end", "error: super", "error: ***"},
		{"longest prefix wins", "x supersecre", "x ***"},
		{"whole secret", "x supersecret", "x ***"},
		{"no prefix at end", "error: done", "error: done"},
		{"split key value", `{"access_token":"eyJhbG`, `{"access_token":"***`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, r.RedactTruncated(tc.in))
		})
	}
	// Redact alone cannot know that the text was cut.
	require.Equal(t, "error: super", r.Redact("error: super"))
}

func TestTruncate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		max  int
		want string
	}{
		{"short text", "abc", 10, "abc"},
		{"exact", "abc", 3, "abc"},
		{"ascii cut", "abcdef", 4, "abcd"},
		{"zero", "abc", 0, ""},
		{"negative", "abc", -1, ""},
		{"two byte rune not split", "aé", 2, "a"},
		{"two byte rune kept", "aéb", 3, "aé"},
		{"three byte rune not split", "a€", 3, "a"},
		{"four byte rune not split", "a😀", 4, "a"},
		{"four byte rune kept", "a😀b", 5, "a😀"},
		{"rune at start", "😀", 2, ""},
		{"invalid bytes cut as bytes", "a\xff\xfe\xfd", 2, "a\xff"},
		{"stray continuation bytes", "a\x80\x80\x80\x80\x80", 5, "a\x80\x80\x80\x80"},
		{"replacement character", "a\uFFFDb", 2, "a"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := redact.Truncate(tc.in, tc.max)
			require.Equal(t, tc.want, got)
			require.LessOrEqual(t, len(got), max(tc.max, 0))
		})
	}
}

func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	r := redact.New("k3y-value")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				out := r.With("tok").Redact(`{"x":"k3y-value","y":"tok"} Authorization: Bearer z`)
				if strings.Contains(out, "k3y") || strings.Contains(out, "tok\"") {
					t.Errorf("leak: %s", out)
				}
			}
		})
	}
	wg.Wait()
}
