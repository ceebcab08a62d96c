// The Temporal UI for `npm run cluster` (docs/production.md "Find a stuck flow in the Temporal UI"):
// the ui-server v2.42.1 the Temporal CLI v1.5.1 embeds, started as its dev server starts it
// (temporalcli/devserver/server.go), against the cluster's frontend. Built once per user by
// scripts/lib/temporal-ui.ts; `go install` of the UI's own command is not used.
package main

import (
	"flag"
	"log"

	uiserver "github.com/temporalio/ui-server/v2/server"
	uiconfig "github.com/temporalio/ui-server/v2/server/config"
	uiserveroptions "github.com/temporalio/ui-server/v2/server/server_options"
)

func main() {
	address := flag.String("address", "127.0.0.1:7233", "the Temporal frontend (gRPC host:port)")
	host := flag.String("host", "127.0.0.1", "address the UI listens on")
	port := flag.Int("port", 8233, "port the UI listens on")
	namespace := flag.String("namespace", "default", "namespace the UI opens")
	publicPath := flag.String("public-path", "", "path prefix when served below a path (e.g. /temporal)")
	insecureCookie := flag.Bool("insecure-cookie", false, "send the CSRF cookie over plain HTTP (a UI reached without TLS)")
	flag.Parse()

	server := uiserver.NewServer(uiserveroptions.WithConfigProvider(&uiconfig.Config{
		Host:                *host,
		Port:                *port,
		TemporalGRPCAddress: *address,
		EnableUI:            true,
		PublicPath:          *publicPath,
		DefaultNamespace:    *namespace,
		CORS:                uiconfig.CORS{CookieInsecure: *insecureCookie},
		HideLogs:            true,
	}))
	log.Printf("temporal ui listening on %s:%d, frontend %s", *host, *port, *address)
	if err := server.Start(); err != nil {
		log.Fatal(err)
	}
}
