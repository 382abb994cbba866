/// The audit page's inline style sheet (`AuditPage`): system fonts, numbers right-aligned in tabular
/// figures, layers over tolerance and FAIL in red, PASS in green.
enum AuditPageStyle {
    static let css = """
        body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #222; max-width: 1100px; }
        h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 28px; } h3 { font-size: 15px; }
        .verdict { padding: 2px 10px; border-radius: 4px; color: #fff; }
        .verdict.pass { background: #2e7d32; } .verdict.fail { background: #c62828; }
        table { border-collapse: collapse; font-size: 12px; margin: 8px 0; }
        th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: left; vertical-align: top; }
        td.num { text-align: right; font-variant-numeric: tabular-nums; font-family: ui-monospace, monospace; }
        tr.over td { background: #ffebee; color: #b71c1c; }
        table.summary th { background: #f5f5f5; white-space: nowrap; }
        table.files td { word-break: break-all; } table.files code { font-size: 11px; }
        svg .axis { font-size: 11px; fill: #444; }
        figure { margin: 8px 0; } figcaption { font-size: 12px; color: #555; }
        footer { margin-top: 32px; font-size: 12px; color: #666; }
        """
}
