package aes

import "sync"

// DefaultKeyCacheSize is the number of derived keys a KeyCache keeps.
const DefaultKeyCacheSize = 16

// KeyCache remembers derived keys by (scheme, password, salt, cost), so an
// archive whose entries share a password and salt derives the key once.
// It keeps at most its size in entries, dropping the least recently used.
// The zero value is the cache, ready to use with room for
// DefaultKeyCacheSize entries; a KeyCache is safe for concurrent use. Derivation happens outside the
// lock, so two goroutines asking for the same new key may both derive it.
type KeyCache struct {
	mu      sync.Mutex
	entries []cacheEntry // most recently used first
}

type scheme uint8

const (
	scheme7z scheme = iota + 1
	schemeRAR5
	schemeRAR3
)

type cacheEntry struct {
	scheme   scheme
	password string
	salt     string
	cost     int
	a, b     [32]byte
	c        [16]byte
}

func (c *KeyCache) lookup(s scheme, password string, salt []byte, cost int) (cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if e.scheme == s && e.cost == cost && e.password == password && e.salt == string(salt) {
			copy(c.entries[1:i+1], c.entries[:i])
			c.entries[0] = e
			return e, true
		}
	}
	return cacheEntry{}, false
}

func (c *KeyCache) store(e cacheEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, old := range c.entries {
		if old.scheme == e.scheme && old.cost == e.cost && old.password == e.password && old.salt == e.salt {
			return
		}
	}
	if len(c.entries) < DefaultKeyCacheSize {
		c.entries = append(c.entries, cacheEntry{})
	} else {
		last := &c.entries[len(c.entries)-1]
		clear(last.a[:])
		clear(last.b[:])
		clear(last.c[:])
	}
	copy(c.entries[1:], c.entries[:len(c.entries)-1])
	c.entries[0] = e
}

// Len returns the number of cached keys.
func (c *KeyCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// Clear forgets every cached key, wiping the key bytes.
func (c *KeyCache) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.entries {
		e := &c.entries[i]
		clear(e.a[:])
		clear(e.b[:])
		clear(e.c[:])
	}
	c.entries = nil
}

// Key7z is Key7zLimit through the cache. Errors are not cached.
func (c *KeyCache) Key7z(password string, salt []byte, cyclesPower, limit int) ([32]byte, error) {
	if e, ok := c.lookup(scheme7z, password, salt, cyclesPower); ok {
		return e.a, nil
	}
	k, err := Key7zLimit(password, salt, cyclesPower, limit)
	if err != nil {
		return k, err
	}
	c.store(cacheEntry{scheme: scheme7z, password: password, salt: string(salt), cost: cyclesPower, a: k})
	return k, nil
}

// KeyRAR5 is KeyRAR5Limit through the cache. Errors are not cached.
func (c *KeyCache) KeyRAR5(password string, salt []byte, lg2Count, limit int) (key, hashKey [32]byte, pswCheck [8]byte, err error) {
	if e, ok := c.lookup(schemeRAR5, password, salt, lg2Count); ok {
		return e.a, e.b, [8]byte(e.c[:8]), nil
	}
	key, hashKey, pswCheck, err = KeyRAR5Limit(password, salt, lg2Count, limit)
	if err != nil {
		return
	}
	e := cacheEntry{scheme: schemeRAR5, password: password, salt: string(salt), cost: lg2Count, a: key, b: hashKey}
	copy(e.c[:], pswCheck[:])
	c.store(e)
	return
}

// KeyRAR3 is KeyRAR3 through the cache.
func (c *KeyCache) KeyRAR3(password string, salt []byte) (key, iv [16]byte) {
	if e, ok := c.lookup(schemeRAR3, password, salt, 0); ok {
		return [16]byte(e.a[:16]), e.c
	}
	key, iv = KeyRAR3(password, salt)
	e := cacheEntry{scheme: schemeRAR3, password: password, salt: string(salt), c: iv}
	copy(e.a[:], key[:])
	c.store(e)
	return key, iv
}
