// The reference webhook for bench/webhook.sh: what most admission webhooks are,
// Go's net/http and encoding/json. It parses the whole AdmissionReview (the
// object included, as a typed webhook would) and answers allowed with the uid.
// With -static it answers a fixed body without reading the review: the TLS
// ceiling of the machine.
//
// bench/admission_latency.sh also puts it in front of kube-apiserver as a
// stand-in webhook, to measure what HTTP/2 costs or saves the API server:
// Go's server speaks h2 to a client that offers it by ALPN (kube-apiserver's
// webhook client does), and -http1 holds it to HTTP/1.1. GET /protocols
// counts the reviews answered over each protocol, so the benchmark can check
// which one the API server used.
package main

import (
	"crypto/tls"
	"encoding/json"
	"flag"
	"io"
	"log"
	"net/http"
	"sync"
)

type review struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Request    *struct {
		UID       string                 `json:"uid"`
		Operation string                 `json:"operation"`
		Object    map[string]interface{} `json:"object"`
	} `json:"request"`
}

type response struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Response   struct {
		UID     string `json:"uid"`
		Allowed bool   `json:"allowed"`
	} `json:"response"`
}

const staticBody = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",` +
	`"response":{"uid":"00000000-0000-0000-0000-000000000000","allowed":true}}`

// Reviews answered, by protocol ("HTTP/1.1", "HTTP/2.0").
var (
	mu        sync.Mutex
	protocols = map[string]int{}
)

func admit(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 3<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var in review
	if err := json.Unmarshal(body, &in); err != nil || in.Request == nil {
		http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
		return
	}
	var out response
	out.APIVersion, out.Kind = in.APIVersion, "AdmissionReview"
	out.Response.UID, out.Response.Allowed = in.Request.UID, true
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(&out)
}

func static(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, staticBody)
}

func counted(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/protocols" {
			mu.Lock()
			defer mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(protocols)
			return
		}
		h(w, r)
		mu.Lock()
		protocols[r.Proto]++
		mu.Unlock()
	}
}

func main() {
	listen := flag.String("listen", "127.0.0.1:9443", "address")
	cert := flag.String("cert", "cert.pem", "certificate")
	key := flag.String("key", "key.pem", "private key")
	fixed := flag.Bool("static", false, "answer a fixed body")
	http1 := flag.Bool("http1", false, "HTTP/1.1 only: no h2 by ALPN")
	flag.Parse()
	h := http.HandlerFunc(admit)
	if *fixed {
		h = static
	}
	server := &http.Server{Addr: *listen, Handler: counted(h)}
	if *http1 {
		// A non-nil, empty map: net/http then configures no h2.
		server.TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){}
	}
	log.Fatal(server.ListenAndServeTLS(*cert, *key))
}
