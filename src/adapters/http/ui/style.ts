// The page's one stylesheet, embedded in the build (no files to ship beside dist/). Readable at 390 px:
// one column, wrapping buttons, arguments that wrap anywhere instead of widening the page.
export const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.45 system-ui,sans-serif;color:#1b1f24;background:#f5f6f8}
header{display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center;padding:.6rem 1rem;background:#1b1f24;color:#fff}
header a{color:#cfe3ff;text-decoration:none}header a[aria-current=page]{color:#fff;font-weight:600}
header .who{margin-inline-start:auto;font-size:.85rem;color:#aab}
header form{display:inline}
main{max-width:60rem;margin:0 auto;padding:1rem}
h1{font-size:1.3rem;margin:.2rem 0 1rem}h2{font-size:1.05rem;margin:1.2rem 0 .5rem}
.card{background:#fff;border:1px solid #d8dce2;border-radius:8px;padding:.8rem 1rem;margin:0 0 1rem}
.card h3{margin:0 0 .5rem;font-size:1rem;overflow-wrap:anywhere}
dl{margin:0;display:grid;grid-template-columns:minmax(6rem,max-content) 1fr;gap:.2rem .8rem}
dt{color:#5a6270;font-size:.85rem}dd{margin:0;min-width:0}
pre{margin:0;white-space:pre-wrap;overflow-wrap:anywhere;font:13px/1.4 ui-monospace,monospace;unicode-bidi:plaintext}
.buttons{display:flex;flex-wrap:wrap;gap:.5rem;margin-top:.7rem;align-items:center}
.buttons form{display:flex;flex-wrap:wrap;gap:.4rem;margin:0}
button{font:inherit;padding:.35rem .9rem;border-radius:6px;border:1px solid #8a94a3;background:#fff;cursor:pointer}
button.primary{background:#1f6feb;border-color:#1f6feb;color:#fff}
button.danger{background:#cf222e;border-color:#cf222e;color:#fff}
input[type=text],input[type=password]{font:inherit;padding:.35rem .5rem;border:1px solid #8a94a3;border-radius:6px;
min-width:0}
.notice{padding:.6rem .9rem;border-radius:6px;margin:0 0 1rem;background:#fff8c5;border:1px solid #d4a72c}
.notice.ok{background:#dafbe1;border-color:#4ac26b}
.footer{margin-top:.5rem;color:#5a6270}
.add-server label{display:block;margin:.3rem 0}.add-server input[type=text],.add-server input[type=password]{width:100%}
.paging{display:flex;flex-wrap:wrap;gap:.3rem 1rem;align-items:center;margin:0 0 1rem;color:#5a6270}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{text-align:start;padding:.35rem .5rem;border-bottom:1px solid #e3e6ea;vertical-align:top;overflow-wrap:anywhere}
td.by{overflow-wrap:normal}
.muted{color:#5a6270}.signin{max-width:24rem;margin:4rem auto}.signin input{width:100%;margin:.5rem 0}
@media (max-width:600px){dl{grid-template-columns:1fr}table,tbody,tr,td{display:block}thead{display:none}
td{border:0;padding:.1rem .3rem}tr{border-bottom:1px solid #e3e6ea;padding:.4rem 0}}
`;
