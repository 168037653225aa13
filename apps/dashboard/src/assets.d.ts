/** Style sheets imported for esbuild, which writes them to main.css beside the script. */
declare module '*.css';
