package jsonata

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDocumentationExamples checks examples of the JSONata documentation
// (shared/jsonata/docs) that the conformance suite does not cover.
func TestDocumentationExamples(t *testing.T) {
	t.Parallel()
	tests := []struct{ expr, want string }{
		{`$formatBase(35, 2) ~> $pad(-8, '0')`, `"00100011"`},
		{`$trim("   Hello    \n World  ")`, `"Hello World"`},
		{`$split("too much, punctuation. hard; to read", /[ ,.;]+/, 3) ~> $join(', ')`, `"too, much, punctuation"`},
		{`$match("ababbabbcc",/a(b+)/)`, `[{"match":"ab","index":0,"groups":["b"]},{"match":"abb","index":2,"groups":["bb"]},{"match":"abb","index":5,"groups":["bb"]}]`},
		{`$fromMillis(1510067557121, '[M01]/[D01]/[Y0001] [h#1]:[m01][P]')`, `"11/07/2017 3:12pm"`},
		{`$fromMillis(1510067557121, '[H01]:[m01]:[s01] [z]', '-0500')`, `"10:12:37 GMT-05:00"`},
		{`$toMillis('10/12/2018', '[D]/[M]/[Y]') ~> $fromMillis('[FNn], [D1o] [MNn] [YI]')`, `"Monday, 10th December MMXVIII"`},
		{`$toMillis('10/12/2018', '[D]/[M]/[Y]') ~> $fromMillis('[M]/[D]/[Y]')`, `"12/10/2018"`},
		{`$formatInteger(2789, 'w')`, `"two thousand, seven hundred and eighty-nine"`},
		{`$parseInteger("twelve thousand, four hundred and seventy-six", 'w')`, `12476`},
		{`$formatNumber(34.555, "#0.00;(#0.00)")`, `"34.56"`},
		{`$formatNumber(-34.555, "#0.00;(#0.00)")`, `"(34.56)"`},
		{`($matcher := /[a-z]*an[a-z]*/i; $matcher('A man, a plan, a canal, Panama!').next().next().match)`, `"canal"`},
		{`[$round(123.456, 2), $round(11.5), $round(12.5), $round(125, -1), $round(-2.5)]`, `[123.46,12,12,120,-2]`},
		{`$base64decode($base64encode("myuser:mypass"))`, `"myuser:mypass"`},
		{`$encodeUrl("https://mozilla.org/?x=шеллы")`, `"https://mozilla.org/?x=%D1%88%D0%B5%D0%BB%D0%BB%D1%8B"`},
		{`$decodeUrlComponent($encodeUrlComponent("?x=test"))`, `"?x=test"`},
		{`λ($f) { λ($x) { $x($x) }( λ($g) { $f( (λ($a) {$g($g)($a)}))})}(λ($f) { λ($n) { $n < 2 ? 1 : $n * $f($n - 1) } })(6)`, `720`},
		{`( $first5Capitalized := $substring(?, 0, 5) ~> $uppercase(?); $first5Capitalized("Winchester") )`, `"WINCH"`},
		{`( $normalize := $uppercase ~> $trim; $normalize("   Some   Words   ") )`, `"SOME WORDS"`},
		{`$zip([1,2,3],[4,5],[7,8,9])`, `[[1,4,7],[2,5,8]]`},
		{`$shuffle([1..9]) ~> $sort()`, `[1,2,3,4,5,6,7,8,9]`},
		{`$now('[Y0001]') = $fromMillis($millis(), '[Y0001]')`, `true`},
		{`[1..3, 7..9].($ * $)`, `[1,4,9,49,64,81]`},
		{`5&0&true`, `"50true"`},
		{`"ab" ~> /b/ and "c" ~> /c/`, `true`},
		{`[6 / 2, 6/2]`, `[3,3]`},
	}
	for _, tc := range tests {
		x, err := Compile(tc.expr)
		require.NoError(t, err, tc.expr)
		out, err := x.EvaluateJSON(context.Background(), nil, nil)
		require.NoError(t, err, tc.expr)
		require.Equal(t, tc.want, string(out), tc.expr)
	}
}
