// Command concurrency drives Go's etcd client recipes, clientv3/concurrency from etcd 3.4 (Debian's
// golang-etcd-server-dev), against one etcd endpoint: NewMutex (Lock, a waiter, Unlock) and NewElection (Campaign,
// Leader, Resign). It prints one line per step and "ok" at the end; any failure exits 1 with its reason.
//
// Usage: concurrency HOST:PORT PREFIX
//
// EtcdGoConcurrencyTest (etcd-compat module) builds it with GO111MODULE=off and GOPATH=/usr/share/gocode and runs
// it on Regent's etcd port.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"go.etcd.io/etcd/clientv3"
	"go.etcd.io/etcd/clientv3/concurrency"
)

// step bounds every call: Regent answers in milliseconds, so a step that takes this long has failed.
const step = 30 * time.Second

func main() {
	if len(os.Args) != 3 {
		fail("usage: concurrency HOST:PORT PREFIX")
	}
	endpoint, prefix := os.Args[1], os.Args[2]
	first, second := client(endpoint), client(endpoint)
	defer first.Close()
	defer second.Close()
	mutex(first, second, prefix+"mutex")
	election(first, second, prefix+"election")
	fmt.Println("ok")
}

func client(endpoint string) *clientv3.Client {
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 10 * time.Second})
	check("connect", err)
	return c
}

// mutex: the first session holds the lock; the second queues (its key exists) and is granted only after Unlock;
// each holder's fencing token is its key's create revision, and the second's is the greater.
func mutex(first, second *clientv3.Client, name string) {
	s1, s2 := session(first), session(second)
	m1, m2 := concurrency.NewMutex(s1, name), concurrency.NewMutex(s2, name)
	ctx, cancel := context.WithTimeout(context.Background(), step)
	defer cancel()
	check("first lock", m1.Lock(ctx))
	token1 := createRevision(first, m1.Key())
	fmt.Printf("mutex first holds, fencing token %d\n", token1)

	granted := make(chan error, 1)
	go func() { granted <- m2.Lock(ctx) }()
	waitForKeys(first, name+"/", 2)
	select {
	case err := <-granted:
		fail(fmt.Sprintf("the second lock returned (%v) while the first held it", err))
	default:
		fmt.Println("mutex second waits while the first holds")
	}
	check("first unlock", m1.Unlock(ctx))
	check("second lock", <-granted)
	token2 := createRevision(second, m2.Key())
	if token2 <= token1 {
		fail(fmt.Sprintf("the second holder's fencing token %d is not above the first's %d", token2, token1))
	}
	fmt.Printf("mutex second holds after unlock, fencing token %d\n", token2)
	check("second unlock", m2.Unlock(ctx))
	check("close sessions", closeAll(s1, s2))
}

// election: the first candidate leads; the second campaigns (its key exists) and leads only once the first resigns.
func election(first, second *clientv3.Client, name string) {
	s1, s2 := session(first), session(second)
	e1, e2 := concurrency.NewElection(s1, name), concurrency.NewElection(s2, name)
	ctx, cancel := context.WithTimeout(context.Background(), step)
	defer cancel()
	check("first campaign", e1.Campaign(ctx, "a"))
	fmt.Printf("election leader %s\n", leader(ctx, e2))

	elected := make(chan error, 1)
	go func() { elected <- e2.Campaign(ctx, "b") }()
	waitForKeys(first, name+"/", 2)
	select {
	case err := <-elected:
		fail(fmt.Sprintf("the second campaign returned (%v) while the first led", err))
	default:
		fmt.Printf("election second waits, leader still %s\n", leader(ctx, e2))
	}
	check("first resign", e1.Resign(ctx))
	check("second campaign", <-elected)
	fmt.Printf("election leader %s after resign\n", leader(ctx, e1))
	check("second resign", e2.Resign(ctx))
	check("close sessions", closeAll(s1, s2))
}

func session(c *clientv3.Client) *concurrency.Session {
	s, err := concurrency.NewSession(c, concurrency.WithTTL(10))
	check("session", err)
	return s
}

func closeAll(sessions ...*concurrency.Session) error {
	for _, s := range sessions {
		if err := s.Close(); err != nil {
			return err
		}
	}
	return nil
}

func leader(ctx context.Context, e *concurrency.Election) string {
	r, err := e.Leader(ctx)
	check("leader", err)
	return string(r.Kvs[0].Value)
}

func createRevision(c *clientv3.Client, key string) int64 {
	ctx, cancel := context.WithTimeout(context.Background(), step)
	defer cancel()
	r, err := c.Get(ctx, key)
	check("get "+key, err)
	if len(r.Kvs) != 1 {
		fail("the holder's key " + key + " is missing")
	}
	return r.Kvs[0].CreateRevision
}

// waitForKeys reads the prefix until it holds n keys (the waiter has queued), for at most one step.
func waitForKeys(c *clientv3.Client, prefix string, n int64) {
	deadline := time.Now().Add(step)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), step)
		r, err := c.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
		cancel()
		check("count "+prefix, err)
		if r.Count >= n {
			return
		}
	}
	fail(fmt.Sprintf("%s never held %d keys", prefix, n))
}

func check(what string, err error) {
	if err != nil {
		fail(what + ": " + err.Error())
	}
}

func fail(why string) {
	fmt.Fprintln(os.Stderr, "FAILED: "+why)
	os.Exit(1)
}
