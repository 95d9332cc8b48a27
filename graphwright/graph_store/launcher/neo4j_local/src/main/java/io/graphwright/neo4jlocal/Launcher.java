package io.graphwright.neo4jlocal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.server.CommunityBootstrapper;
import org.neo4j.server.NeoBootstrapper;

/**
 * Starts a real Neo4j Community server (the bootstrapper the official distribution runs: Bolt, HTTP and
 * the Browser) on loopback with authentication on and the store on disk under the given home directory.
 *
 * <p>Usage: {@code Launcher --home DIR [--bolt HOST:PORT] [--http HOST:PORT] [--pagecache SIZE] [--tx-timeout DURATION]
 * [--plugins DIR]}. With {@code --plugins}, the jars there (Graph Data Science) are loaded and {@code gds.*} may
 * use the internal APIs it needs; graphwright's read-only gate refuses the {@code gds} namespace in user Cypher.
 * The password comes from the environment variable NEO4J_PASSWORD, never from the command line, so it
 * does not show in {@code ps}. The user "neo4j" is given that password at every start, so the local
 * server always follows the configured password.
 *
 * <p>Locked down beyond Neo4j's defaults: LOAD CSV may not read files (file URLs off, and the import
 * directory is an empty folder of its own, not the server's home) nor reach any network address (every
 * address is on Cypher's IP blocklist); the Browser's HTTP API answers cross-origin requests only from
 * its own origin.
 */
public final class Launcher {
    private Launcher() {}

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = parse(argv);
        Path home = Path.of(required(args, "--home")).toAbsolutePath();
        String bolt = args.getOrDefault("--bolt", "127.0.0.1:7687");
        String http = args.getOrDefault("--http", "127.0.0.1:7474");
        String pagecache = args.getOrDefault("--pagecache", "512m");
        String password = System.getenv("NEO4J_PASSWORD");
        if (password == null || password.length() < 8) {
            System.err.println("graphwright-neo4j-local: NEO4J_PASSWORD must be set (8 characters or more)");
            System.exit(2);
        }

        Files.deleteIfExists(home.resolve("ready"));
        Path conf = home.resolve("conf");
        Files.createDirectories(conf);
        Path confFile = conf.resolve("neo4j.conf");
        if (!Files.exists(confFile)) {
            Files.writeString(confFile, "# graphwright local server: settings are passed by the launcher\n");
        }

        Path imports = home.resolve("import");
        Files.createDirectories(imports);

        Map<String, String> settings = new HashMap<>();
        settings.put("server.default_listen_address", "127.0.0.1");
        settings.put("server.bolt.enabled", "true");
        settings.put("server.bolt.listen_address", bolt);
        settings.put("server.bolt.advertised_address", bolt);
        settings.put("server.http.enabled", "true");
        settings.put("server.http.listen_address", http);
        settings.put("server.http.advertised_address", http);
        settings.put("server.https.enabled", "false");
        settings.put("dbms.security.auth_enabled", "true");
        settings.put("dbms.usage_report.enabled", "false");
        settings.put("server.memory.pagecache.size", pagecache);
        // A laptop's store: Neo4j preallocates each transaction log at its rotation size (256 MB by default,
        // twice: one log for the system database, one for ours), so a 1 MB graph took 515 MB. Small logs
        // that grow as written, rotated at 16 MB, the last two kept (what recovery needs after a crash),
        // and checkpoints often enough that old ones are pruned while the server runs.
        settings.put("db.tx_log.preallocate", "false");
        settings.put("db.tx_log.rotation.size", "16M");
        settings.put("db.tx_log.rotation.retention_policy", "2 files");
        settings.put("db.checkpoint.interval.time", "5m");
        settings.put("server.directories.import", imports.toString());
        settings.put("dbms.security.allow_csv_import_from_file_urls", "false");
        settings.put("internal.dbms.cypher_ip_blocklist", "0.0.0.0/0,::/0");
        settings.put("dbms.security.http_access_control_allow_origin", "http://" + http);
        // Bounded work: no transaction may hold more than half the heap, all of them together 70% of it
        // (Neo4j then fails the transaction, not the server), and none runs longer than the timeout.
        long heap = Runtime.getRuntime().maxMemory();
        settings.put("db.memory.transaction.max", Long.toString(heap / 2));
        settings.put("db.memory.transaction.total.max", Long.toString(heap * 7 / 10));
        settings.put("db.transaction.timeout", args.getOrDefault("--tx-timeout", "300s"));
        String plugins = args.get("--plugins");
        if (plugins != null) {
            settings.put("server.directories.plugins", Path.of(plugins).toAbsolutePath().toString());
            settings.put("dbms.security.procedures.unrestricted", "gds.*");
        }

        NeoBootstrapper server = new CommunityBootstrapper();
        int status = server.start(home, confFile, settings, false, false);
        if (status != NeoBootstrapper.OK) {
            System.err.println("graphwright-neo4j-local: server failed to start (status " + status + "); see "
                    + home.resolve("logs"));
            System.exit(status);
        }
        setPassword(server.getDatabaseManagementService(), password);
        // Bolt opens before the password is set; clients wait for this file, not for the port.
        Files.writeString(home.resolve("ready"), Long.toString(ProcessHandle.current().pid()));
        System.out.println("graphwright-neo4j-local: ready bolt://" + bolt + " http://" + http + "/browser/");
        System.out.flush();

        // The bootstrapper installs SIGTERM/SIGINT handlers that stop the server cleanly and exit;
        // the main thread only has to stay alive until then.
        new CountDownLatch(1).await();
    }

    private static void setPassword(DatabaseManagementService dbms, String password) {
        try {
            dbms.database("system").executeTransactionally(
                    "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED", Map.of("password", password));
        } catch (RuntimeException e) {
            // Neo4j refuses to "change" a password to the one already set: that is the steady state.
            String message = String.valueOf(e.getMessage()).toLowerCase();
            if (!message.contains("old password and new password cannot be the same")) {
                throw e;
            }
        }
    }

    private static Map<String, String> parse(String[] argv) throws IOException {
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i < argv.length; i++) {
            if (!argv[i].startsWith("--") || i + 1 >= argv.length) {
                throw new IOException("usage: Launcher --home DIR [--bolt HOST:PORT] [--http HOST:PORT] [--pagecache SIZE] "
                        + "[--tx-timeout DURATION] [--plugins DIR]");
            }
            out.put(argv[i], argv[++i]);
        }
        return out;
    }

    private static String required(Map<String, String> args, String key) throws IOException {
        String value = args.get(key);
        if (value == null) {
            throw new IOException("missing " + key);
        }
        return value;
    }
}
