// Package english holds the few rules of English that platc's messages
// need, so that every command counts things the same way.
package english

import (
	"strconv"
	"strings"
)

// Plural is noun as it goes with n: "app" for 1, "apps" otherwise, and
// "dependencies" for a noun in -y after a consonant.
func Plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	if n := len(noun); n >= 2 && noun[n-1] == 'y' && !strings.ContainsRune("aeiou", rune(noun[n-2])) {
		return noun[:len(noun)-1] + "ies"
	}
	return noun + "s"
}

// Count is n with its noun: "1 app", "3 apps".
func Count(n int, noun string) string { return strconv.Itoa(n) + " " + Plural(n, noun) }

// Agree returns one when n is 1 and many otherwise: the word that agrees
// with a count ("it"/"them", "differs"/"differ").
func Agree(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// List joins items as "a, b and c".
func List(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
