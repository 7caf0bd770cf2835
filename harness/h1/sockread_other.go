//go:build !unix

package h1

import "net"

// sockReader is the raw-descriptor reader of unix systems; elsewhere
// connections are read through net.Conn.
type sockReader struct{}

func newSockReader(net.Conn) *sockReader { return nil }

func (*sockReader) expectResponse() {}

func (*sockReader) Read([]byte) (int, error) { panic("h1: sockReader unused here") }
