package main

import "testing"

func TestParseMachineTicks(t *testing.T) {
	for _, c := range []struct {
		name string
		line string
		want machineTicks
	}{
		// The guest times (4 and 0 here) are inside user and nice already.
		{"every field", "cpu  100 5 20 300 7 1 2 9 4 0", machineTicks{idle: 307, steal: 9, total: 444}},
		{"a kernel without steal", "cpu 10 0 5 80 1", machineTicks{idle: 81, total: 96}},
		{"one CPU's line", "cpu0 10 0 5 80 1 0 0 0", machineTicks{}},
		{"too short", "cpu 1 2 3", machineTicks{}},
		{"not a number", "cpu 1 2 x 4 5 6 7 8", machineTicks{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := parseMachineTicks(c.line); got != c.want {
				t.Fatalf("parseMachineTicks(%q) = %+v, want %+v", c.line, got, c.want)
			}
		})
	}
}

func TestMachineShare(t *testing.T) {
	before := machineTicks{idle: 500, steal: 40, total: 2000}
	after := machineTicks{idle: 650, steal: 190, total: 3000}
	if got, want := machineShare(before, after), "CPU 70 % busy, 15 % stolen, 15 % idle"; got != want {
		t.Fatalf("machineShare = %q, want %q", got, want)
	}
	if got := machineShare(before, before); got != "" {
		t.Fatalf("machineShare with no time between = %q, want empty", got)
	}
	if got := idleShare(before, after); got != 0.15 {
		t.Fatalf("idleShare = %v, want 0.15", got)
	}
}
